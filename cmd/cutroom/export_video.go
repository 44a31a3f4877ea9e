package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"syscall"
	"time"

	"github.com/cutroom/cutroom/assets"
	"github.com/cutroom/cutroom/compositor"
	"github.com/cutroom/cutroom/editor"
	"github.com/cutroom/cutroom/export"
	"github.com/cutroom/cutroom/render"
	"golang.org/x/term"
)

// outputFormat decides the output's format from --format and the -o extension: "png",
// "mp4" or "webm". A --format that contradicts a known extension is an error.
func outputFormat(out, flag string) (string, error) {
	flag = strings.ToLower(strings.TrimSpace(flag))
	switch flag {
	case "", "mp4", "webm", "png":
	default:
		return "", fmt.Errorf("export: --format %q: use mp4 or webm", flag)
	}
	ext := strings.TrimPrefix(strings.ToLower(filepath.Ext(out)), ".")
	switch ext {
	case "mp4", "webm", "png":
		if flag != "" && flag != ext {
			return "", fmt.Errorf("export: --format %s does not match the output name %q (.%s)", flag, out, ext)
		}
		return ext, nil
	}
	if flag == "" {
		return "", fmt.Errorf("export: cannot tell the format of %q: name it .mp4, .webm or .png, or pass --format", out)
	}
	return flag, nil
}

// exportVideo renders the whole timeline of st to f.out with the export pipeline. Ctrl-C
// (SIGINT) or SIGTERM stops it; the pipeline then leaves no file behind.
func exportVideo(ctx context.Context, raw []byte, st *editor.State, media compositor.Media, txt compositor.TextRenderer,
	ill compositor.IllustrationFunc, format string, f *exportFlags) error {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	w, h := export.OutputSize(st.CompositionWidth, st.CompositionHeight, f.scale)
	frames := editor.FrameCount(st.DurationTicks(), int64(f.fps), st.TimebaseTicksPerSecond)
	if frames == 0 {
		return errors.New("export: the timeline is empty (no items): nothing to render")
	}
	if err := export.CheckLength(frames, f.fps, f.maxDur); err != nil {
		return fmt.Errorf("export: %w; --max-duration sets the limit", err)
	}
	out, err := filepath.Abs(f.out)
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	p := render.NewPipeline(render.PipelineConfig{Media: media, Text: txt, Illustrations: ill, Workers: f.workers, WholeFrames: f.whole,
		EncoderThreads: f.threads, Preset: f.preset, CRF: f.crf, MaxOutputSide: f.maxSide,
		MaxFrameSeconds: f.maxFrame})
	// What the pipeline renders: with ffmpeg that includes video and audio items.
	if err := checkUnsupported(st, p.Features(), f.skipUnsupported); err != nil {
		return err
	}
	if err := checkDrawable(st, p); err != nil {
		return err
	}
	job := export.RenderJob{State: raw, Parsed: st, CompositionWidth: st.CompositionWidth,
		CompositionHeight: st.CompositionHeight, OutputWidth: w, OutputHeight: h, Scale: f.scale,
		FPS: f.fps, Format: format, Frames: frames, OutputPath: out}
	mode := f.progress
	if mode == "auto" {
		mode = "lines"
		if term.IsTerminal(int(os.Stderr.Fd())) {
			mode = "bar"
		}
	}
	pr, err := newProgressPrinter(os.Stderr, mode, time.Now)
	if err != nil {
		return err
	}
	if f.cpuProf != "" {
		pf, err := os.Create(f.cpuProf)
		if err != nil {
			return fmt.Errorf("export: %w", err)
		}
		defer pf.Close()
		if err := pprof.StartCPUProfile(pf); err != nil {
			return fmt.Errorf("export: %w", err)
		}
		defer pprof.StopCPUProfile()
	}
	start := time.Now()
	err = p.Render(ctx, job, pr.report)
	pr.end()
	if err != nil {
		if ctx.Err() != nil {
			return errors.New("export: interrupted; no output was written")
		}
		return fmt.Errorf("export: %w (no output was written)", err)
	}
	secs := time.Since(start).Seconds()
	fmt.Fprintf(os.Stderr, "export: wrote %s: %dx%d, %d frames at %d fps (%.2f s of video) in %.1f s (%.1f frames/s)\n",
		f.out, w, h, frames, f.fps, float64(frames)/float64(f.fps), secs, float64(frames)/max(secs, 1e-9))
	return nil
}

// progressPrinter shows a render's progress on a terminal (a bar redrawn with \r) or as
// plain lines (every 5% or 2 s, for logs and pipes).
type progressPrinter struct {
	w       io.Writer
	mode    string // bar, lines or none
	now     func() time.Time
	start   time.Time
	last    time.Time
	lastPct int64
	drawn   bool
}

func newProgressPrinter(w io.Writer, mode string, now func() time.Time) (*progressPrinter, error) {
	switch mode {
	case "bar", "lines", "none":
	default:
		return nil, fmt.Errorf("export: --progress %q: use auto, bar, lines or none", mode)
	}
	t := now()
	return &progressPrinter{w: w, mode: mode, now: now, start: t, last: t, lastPct: -5}, nil
}

// report is the pipeline's progress callback.
func (p *progressPrinter) report(done, total int64) {
	if p.mode == "none" || total <= 0 {
		return
	}
	t := p.now()
	pct := done * 100 / total
	switch p.mode {
	case "bar":
		if done != total && t.Sub(p.last) < 100*time.Millisecond {
			return
		}
	case "lines":
		if done != total && pct/5 == p.lastPct/5 && t.Sub(p.last) < 2*time.Second {
			return
		}
	}
	p.last, p.lastPct = t, pct
	el := t.Sub(p.start).Seconds()
	fps := 0.0
	if el > 0 {
		fps = float64(done) / el
	}
	eta := "?"
	if fps > 0 {
		eta = fmtDuration(time.Duration(float64(total-done) / fps * float64(time.Second)))
	}
	if p.mode == "bar" {
		const width = 30
		fill := int(done * width / total)
		fmt.Fprintf(p.w, "\r[%s%s] %3d%% %d/%d frames %6.1f fps ETA %s ", strings.Repeat("#", fill),
			strings.Repeat(".", width-fill), pct, done, total, fps, eta)
		p.drawn = true
		return
	}
	fmt.Fprintf(p.w, "export: %d/%d frames (%d%%), %.1f fps, ETA %s\n", done, total, pct, fps, eta)
}

// end finishes the bar's line.
func (p *progressPrinter) end() {
	if p.drawn {
		fmt.Fprintln(p.w)
		p.drawn = false
	}
}

func fmtDuration(d time.Duration) string {
	s := int64(d.Round(time.Second) / time.Second)
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}

// uploadsFirst resolves an asset to a workspace's upload (uploads: fetched first with a
// blob store), else through next. An upload's record whose file is missing is an error
// of its own, not a fall through to next: without --blob-store the file of a server
// with one is not in the data dir, which the error says.
func uploadsFirst(uploads, next assets.Resolver, dataDir, blobStore string) assets.Resolver {
	return func(a *editor.Asset) (string, error) {
		p, err := uploads(a)
		if assets.CodeNotFound.Is(err) {
			return next(a)
		}
		if err != nil {
			return "", err // the object store failed, or has no file for the record
		}
		if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
			if blobStore == "" {
				return "", fmt.Errorf("the file of uploaded asset %s is not in %s: a server started with --blob-store keeps it elsewhere; give export the same --blob-store (nats with --nats and --cluster-token, or the shared directory)", a.ID, dataDir)
			}
			return "", fmt.Errorf("the file of uploaded asset %s is missing: %w", a.ID, err)
		}
		return p, nil
	}
}
