package render

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/cutroom/cutroom/editor"
	"github.com/cutroom/cutroom/export"
	"github.com/cutroom/cutroom/segjoin"
)

// DefaultSegmentSeconds is the length of a segment when PipelineConfig.SegmentSeconds (or
// Split's segmentSeconds) is 0.
const DefaultSegmentSeconds = 10

// Segment is a run of frames of one export, [First, End), rendered and encoded on its own
// (RenderSegment) and joined with the others without re-encoding (JoinSegments).
type Segment struct {
	First int64 `json:"first"`
	End   int64 `json:"end"`
}

// Frames is the number of frames in s.
func (s Segment) Frames() int64 { return s.End - s.First }

// SegmentInfo describes a rendered segment file.
type SegmentInfo struct {
	Segment
	// Frames is the number of frames in the file (End - First). The file's timestamps
	// start at 0: frame i of the file is frame First+i of the export.
	Frames int64 `json:"frames"`
	// Bytes is the size of the file.
	Bytes int64 `json:"bytes"`
	// Config is the decoder configuration (H.264 SPS/PPS, VP9 header facts), equal for
	// every segment of one job rendered with the same PipelineConfig.
	Config segjoin.VideoConfig `json:"config"`
	// RenderSeconds is the wall time the segment took to render and encode.
	RenderSeconds float64 `json:"renderSeconds"`
}

// SegmentFile is a rendered segment waiting to be joined: the file and the frames it holds.
type SegmentFile struct {
	Path    string  `json:"path"`
	Segment Segment `json:"segment"`
}

// Split divides job's frames into segments of whole frames, each segmentSeconds long (0
// means DefaultSegmentSeconds; the last may be shorter), in order. An export no longer
// than one segment is one segment, [0, frames). It fails like a render on a job whose
// length or fps cannot be known.
func Split(job export.RenderJob, segmentSeconds float64) ([]Segment, error) {
	if segmentSeconds == 0 {
		segmentSeconds = DefaultSegmentSeconds
	}
	if !(segmentSeconds > 0) || math.IsInf(segmentSeconds, 0) {
		return nil, invalidJob(fmt.Sprintf("segment length %v s must be positive", segmentSeconds))
	}
	frames, err := jobFrames(job)
	if err != nil {
		return nil, err
	}
	per := max(int64(math.Round(segmentSeconds*float64(job.FPS))), 1)
	var segs []Segment
	for first := int64(0); first < frames; first += per {
		segs = append(segs, Segment{First: first, End: min(first+per, frames)})
	}
	return segs, nil
}

// jobFrames returns the number of frames job renders.
func jobFrames(job export.RenderJob) (int64, error) {
	if job.FPS < 1 {
		return 0, invalidJob(fmt.Sprintf("fps %d is out of range", job.FPS))
	}
	if job.Frames > 0 {
		return job.Frames, nil
	}
	st := job.Parsed
	if st == nil {
		var err error
		if st, err = editor.Parse(job.State); err != nil {
			return 0, invalidJob("parse the editor state: " + err.Error())
		}
	}
	if st.TimebaseTicksPerSecond <= 0 {
		return 0, invalidJob("the timebase must be positive")
	}
	n := editor.FrameCount(st.DurationTicks(), int64(job.FPS), st.TimebaseTicksPerSecond)
	if n <= 0 {
		return 0, export.ErrStateEmpty.Field("editorState", "the timeline is empty: nothing to render")
	}
	return n, nil
}

// Codes of a join that fails (as *export.RenderFailure).
const (
	// CodeSegmentMismatch: a segment's decoder configuration differs from the first's.
	CodeSegmentMismatch = "EXPORT_SEGMENT_MISMATCH"
	// CodeSegmentInvalid: a segment file is not what a segment must be (unreadable, the
	// wrong frames, no leading keyframe) or the segments do not cover the export.
	CodeSegmentInvalid = "EXPORT_SEGMENT_INVALID"
)

// segmentFailure gives a join's error its task code.
func segmentFailure(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, segjoin.ErrConfigMismatch):
		return &export.RenderFailure{Code: CodeSegmentMismatch, Msg: err.Error(), Err: err}
	case errors.Is(err, segjoin.ErrBadSegment):
		return &export.RenderFailure{Code: CodeSegmentInvalid, Msg: err.Error(), Err: err}
	}
	return leafFailure(err)
}

// RenderSegment renders frames [seg.First, seg.End) of job, video only, into a file of
// job's container (mp4 or webm) at dst (job.OutputPath is not used): the pipeline's codec,
// preset and quality, the first frame a keyframe (IDR), timestamps starting at 0 (frame
// seg.First of the export is the file's frame 0). Every segment of a job rendered with the
// same PipelineConfig has the same decoder configuration, so JoinSegments (or segjoin.Join)
// can join them without re-encoding. The file is written to a temporary name, synced and
// renamed; on error or cancel (which stops it as it stops Render) nothing is left at dst
// or beside it. Errors are the task failures Render returns.
func (p *Pipeline) RenderSegment(ctx context.Context, job export.RenderJob, seg Segment, dst string) (SegmentInfo, error) {
	return p.renderSegment(ctx, job, seg, dst, nil)
}

func (p *Pipeline) renderSegment(ctx context.Context, job export.RenderJob, seg Segment, dst string, progress func(done, total int64)) (SegmentInfo, error) {
	start := time.Now()
	info := SegmentInfo{Segment: seg}
	if dst == "" {
		return info, invalidJob("the segment has no output path")
	}
	job.OutputPath = dst
	pl, err := p.planJob(job)
	if err != nil {
		return info, err
	}
	if seg.First < 0 || seg.End <= seg.First || seg.End > pl.frames {
		return info, invalidJob(fmt.Sprintf("segment [%d, %d) is not a run of the export's %d frames", seg.First, seg.End, pl.frames))
	}
	pl.first, pl.frames, pl.videoOnly = seg.First, seg.Frames(), true
	if _, err := p.renderPlan(ctx, job, pl, progress); err != nil {
		return info, err
	}
	cfg, n, err := segjoin.Probe(dst, pl.format, pl.fps)
	if err == nil && n != seg.Frames() {
		err = fmt.Errorf("%w: the file holds %d frames, not %d", segjoin.ErrBadSegment, n, seg.Frames())
	}
	st, serr := os.Stat(dst)
	if err == nil && serr != nil {
		err = serr
	}
	if err != nil {
		_ = os.Remove(dst)
		return info, segmentFailure(err)
	}
	info.Frames, info.Bytes, info.Config = n, st.Size(), cfg
	info.RenderSeconds = time.Since(start).Seconds()
	return info, nil
}

// JoinSegments joins the rendered segments of job, in order and without re-encoding, with
// job's sound mixed once for the whole timeline, into job.OutputPath (temp file, fsync,
// rename; nothing is left on error or cancel). The segments must cover the export's frames
// from 0 without a gap or overlap (EXPORT_SEGMENT_INVALID) and share their decoder
// configuration: a segment that differs is refused (EXPORT_SEGMENT_MISMATCH) naming it.
// progress, when set, is called with the frames joined so far.
func (p *Pipeline) JoinSegments(ctx context.Context, job export.RenderJob, segs []SegmentFile, progress func(done, total int64)) error {
	pl, err := p.planJob(job)
	if err != nil {
		return err
	}
	in := segjoin.Input{Format: pl.format, FPS: pl.fps}
	if progress != nil {
		in.Progress = func(done int64) { progress(done, pl.frames) }
	}
	for _, sf := range segs {
		in.Parts = append(in.Parts, segjoin.Part{Path: sf.Path, First: sf.Segment.First, End: sf.Segment.End})
	}
	if n := len(segs); n == 0 || segs[n-1].Segment.End != pl.frames {
		return segmentFailure(fmt.Errorf("%w: the segments do not end at the export's last frame %d", segjoin.ErrBadSegment, pl.frames-1))
	}
	_, openSound, closeMedia, err := p.openMedia(ctx, job, pl)
	if err != nil {
		return err
	}
	defer closeMedia()
	if sounds := soundItems(pl.state); len(sounds) > 0 {
		if openSound == nil {
			return export.ErrFeatureUnsupported.Field("editorState",
				"the state has audio, but this server cannot decode sound (ffmpeg is not available)")
		}
		mix := newMixer(ctx, pl.state, sounds, openSound)
		defer mix.close()
		in.Sound = mix.mix
	}
	_, err = segjoin.Join(ctx, job.OutputPath, in)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return segmentFailure(err)
}

// renderSegmented renders job as segments of SegmentSeconds, one after another, in the
// output's directory, and joins them; an export no longer than one segment is rendered in
// one piece, exactly as without segments. The segment files are removed in every case.
func (p *Pipeline) renderSegmented(ctx context.Context, job export.RenderJob, progress func(done, total int64)) error {
	segs, err := p.SplitByCost(job, p.cfg.SegmentSeconds)
	if err != nil {
		return err
	}
	if len(segs) <= 1 {
		_, err := p.render(ctx, job, progress)
		return err
	}
	if job.OutputPath == "" {
		return invalidJob("the job has no output path")
	}
	total := segs[len(segs)-1].End
	dir, base := filepath.Split(job.OutputPath)
	files := make([]SegmentFile, 0, len(segs))
	defer func() {
		for _, f := range files {
			_ = os.Remove(f.Path)
		}
	}()
	for i, seg := range segs {
		path := filepath.Join(dir, fmt.Sprintf(".%s.segment-%d%s", base, i, filepath.Ext(base)))
		var prog func(done, _ int64)
		if progress != nil {
			prog = func(done, _ int64) { progress(min(seg.First+done, total-1), total) }
		}
		files = append(files, SegmentFile{Path: path, Segment: seg})
		if _, err := p.renderSegment(ctx, job, seg, path, prog); err != nil {
			return err
		}
	}
	if err := p.JoinSegments(ctx, job, files, nil); err != nil {
		return err
	}
	if progress != nil {
		progress(total, total)
	}
	return nil
}
