package encode

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/Eyevinn/mp4ff/mp4"
	"github.com/at-wat/ebml-go"
	"github.com/at-wat/ebml-go/webm"

	"github.com/cutroom/cutroom/internal/imagetest"
)

func requireFFmpeg(t testing.TB) {
	t.Helper()
	for _, tool := range []string{"ffprobe", "ffmpeg"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not on PATH: install ffmpeg (scripts/install-deps.sh --test) to run the decode-back tests", tool)
		}
	}
}

// encodeFrames writes n frames of testPattern with opts and returns the output path.
func encodeFrames(t testing.TB, opts Options, n int) string {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "out."+opts.Format)
	w, err := NewWriter(path, opts)
	if err != nil {
		t.Fatalf("NewWriter: %v", err)
	}
	img := image.NewRGBA(image.Rect(0, 0, opts.Width, opts.Height))
	for i := 0; i < n; i++ {
		drawPattern(img, i)
		if err := w.WriteRGBA(img); err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("output dir holds %d entries, want only the output (temporary files left?)", len(entries))
	}
	return path
}

type probeStream struct {
	CodecName      string `json:"codec_name"`
	Profile        string `json:"profile"`
	Width          int    `json:"width"`
	Height         int    `json:"height"`
	PixFmt         string `json:"pix_fmt"`
	ColorRange     string `json:"color_range"`
	ColorSpace     string `json:"color_space"`
	ColorTransfer  string `json:"color_transfer"`
	ColorPrimaries string `json:"color_primaries"`
	RFrameRate     string `json:"r_frame_rate"`
	TimeBase       string `json:"time_base"`
	StartTime      string `json:"start_time"`
	Duration       string `json:"duration"`
	NbFrames       string `json:"nb_frames"`
	NbReadFrames   string `json:"nb_read_frames"`
	HasBFrames     int    `json:"has_b_frames"`
}

type probeFrame struct {
	PTS      int64  `json:"pts"`
	PTSTime  string `json:"pts_time"`
	PictType string `json:"pict_type"`
	KeyFrame int    `json:"key_frame"`
}

type probe struct {
	Streams []probeStream `json:"streams"`
	Frames  []probeFrame  `json:"frames"`
	Format  struct {
		FormatName string `json:"format_name"`
		Duration   string `json:"duration"`
	} `json:"format"`
}

func ffprobe(t testing.TB, path string) probe {
	t.Helper()
	out, err := exec.Command("ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0",
		"-show_streams", "-show_format", "-show_frames", "-of", "json", path).Output()
	if err != nil {
		t.Fatalf("ffprobe: %v", err)
	}
	var p probe
	if err := json.Unmarshal(out, &p); err != nil {
		t.Fatalf("ffprobe json: %v", err)
	}
	if len(p.Streams) != 1 {
		t.Fatalf("ffprobe found %d video streams, want 1", len(p.Streams))
	}
	return p
}

// decodeRGB decodes every frame to packed RGB, converting with BT.709 limited range.
func decodeRGB(t testing.TB, path string, w, h int) [][]byte {
	t.Helper()
	cmd := exec.Command("ffmpeg", "-v", "error", "-i", path,
		"-vf", "scale=in_color_matrix=bt709:in_range=tv:out_range=pc:flags=bicubic+accurate_rnd+full_chroma_int",
		"-f", "rawvideo", "-pix_fmt", "rgb24", "-")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil || stderr.Len() > 0 {
		t.Fatalf("ffmpeg decode: %v %s", err, stderr.String())
	}
	size := w * h * 3
	if len(out)%size != 0 {
		t.Fatalf("decoded %d bytes, not a multiple of the frame size %d", len(out), size)
	}
	var frames [][]byte
	for len(out) > 0 {
		frames = append(frames, out[:size])
		out = out[size:]
	}
	return frames
}

// checkCommon runs the checks every format shares.
func checkCommon(t *testing.T, path string, opts Options, n int, codec string) probe {
	t.Helper()
	p := ffprobe(t, path)
	s := p.Streams[0]
	if s.CodecName != codec || s.PixFmt != "yuv420p" || s.Width != opts.Width || s.Height != opts.Height {
		t.Errorf("stream is %s %s %dx%d, want %s yuv420p %dx%d", s.CodecName, s.PixFmt, s.Width, s.Height, codec, opts.Width, opts.Height)
	}
	if s.ColorSpace != "bt709" || s.ColorTransfer != "bt709" || s.ColorPrimaries != "bt709" || s.ColorRange != "tv" {
		t.Errorf("colour tags: space=%q transfer=%q primaries=%q range=%q, want bt709/bt709/bt709/tv",
			s.ColorSpace, s.ColorTransfer, s.ColorPrimaries, s.ColorRange)
	}
	if s.NbReadFrames != strconv.Itoa(n) {
		t.Errorf("nb_read_frames = %s, want %d", s.NbReadFrames, n)
	}
	if want := fmt.Sprintf("%d/1", opts.FPS); s.RFrameRate != want {
		t.Errorf("r_frame_rate = %s, want %s", s.RFrameRate, want)
	}
	// ffprobe reports whole microseconds (rounded for MP4, truncated for Matroska): allow that; check
	// the containers' own exact values in the per-format tests.
	wantDur := float64(n) / float64(opts.FPS)
	if d, err := strconv.ParseFloat(p.Format.Duration, 64); err != nil || math.Abs(d-wantDur) > 1e-6 {
		t.Errorf("format duration = %s, want %.6f (= %d/%d)", p.Format.Duration, wantDur, n, opts.FPS)
	}
	if len(p.Frames) != n {
		t.Fatalf("ffprobe -show_frames found %d frames, want %d", len(p.Frames), n)
	}
	if p.Frames[0].PTSTime != "0.000000" {
		t.Errorf("first frame pts_time = %s, want 0", p.Frames[0].PTSTime)
	}
	var errOut bytes.Buffer
	cmd := exec.Command("ffmpeg", "-v", "error", "-i", path, "-f", "null", "-")
	cmd.Stdout, cmd.Stderr = &errOut, &errOut
	if err := cmd.Run(); err != nil || errOut.Len() > 0 {
		t.Errorf("ffmpeg -v error decode: %v %q", err, errOut.String())
	}
	// Every frame decodes at its time and matches its input frame.
	frames := decodeRGB(t, path, opts.Width, opts.Height)
	if len(frames) != n {
		t.Fatalf("decoded %d frames, want %d", len(frames), n)
	}
	img := image.NewRGBA(image.Rect(0, 0, opts.Width, opts.Height))
	worst := 99.0
	for i, f := range frames {
		drawPattern(img, i)
		q := imagetest.PSNRRGB(img, f)
		worst = min(worst, q)
		if q < 35 {
			t.Errorf("frame %d: PSNR %.2f dB < 35 dB", i, q)
		}
	}
	t.Logf("%s: %d bytes, worst frame PSNR %.2f dB", filepath.Base(path), fileSize(path), worst)
	return p
}

// bitstreamColour remuxes the video stream out of its container (ffmpeg -c copy with the
// given output arguments) and returns the colour fields ffprobe finds in the bitstream.
func bitstreamColour(t *testing.T, path string, outArgs ...string) string {
	t.Helper()
	raw := path + ".raw"
	args := append([]string{"-v", "error", "-i", path, "-c", "copy"}, outArgs...)
	if out, err := exec.Command("ffmpeg", append(args, raw)...).CombinedOutput(); err != nil {
		t.Fatalf("ffmpeg remux: %v %s", err, out)
	}
	defer os.Remove(raw)
	out, err := exec.Command("ffprobe", "-v", "error", "-show_entries",
		"stream=color_space,color_transfer,color_primaries,color_range", "-of", "json", raw).Output()
	if err != nil {
		t.Fatalf("ffprobe: %v", err)
	}
	var p probe
	if err := json.Unmarshal(out, &p); err != nil || len(p.Streams) != 1 {
		t.Fatalf("ffprobe json: %v", err)
	}
	s := p.Streams[0]
	return s.ColorSpace + "/" + s.ColorTransfer + "/" + s.ColorPrimaries + "/" + s.ColorRange
}

func fileSize(path string) int64 {
	st, err := os.Stat(path)
	if err != nil {
		return -1
	}
	return st.Size()
}

// topLevelBoxes returns the types of an MP4's top-level boxes in file order.
func topLevelBoxes(t *testing.T, path string) []string {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	for len(data) >= 8 {
		size := uint64(binary.BigEndian.Uint32(data))
		typ := string(data[4:8])
		if size == 1 && len(data) >= 16 {
			size = binary.BigEndian.Uint64(data[8:])
		}
		if size < 8 || size > uint64(len(data)) {
			t.Fatalf("bad box %q size %d", typ, size)
		}
		types = append(types, typ)
		data = data[size:]
	}
	if len(data) != 0 {
		t.Fatalf("%d trailing bytes after the last box", len(data))
	}
	return types
}

func TestMP4H264(t *testing.T) {
	requireFFmpeg(t)
	for _, tc := range []struct {
		name string
		opts Options
		n    int
	}{
		{"30fps-default-bframes", Options{Format: "mp4", Width: 320, Height: 240, FPS: 30}, 45},
		{"24fps-medium", Options{Format: "mp4", Width: 256, Height: 144, FPS: 24, Preset: "medium", Threads: 2}, 50},
		{"25fps-ultrafast-1thread", Options{Format: "mp4", Width: 192, Height: 108, FPS: 25, Preset: "ultrafast", Threads: 1}, 30},
		{"7fps-slow", Options{Format: "mp4", Width: 160, Height: 120, FPS: 7, Preset: "slow"}, 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := encodeFrames(t, tc.opts, tc.n)
			p := checkCommon(t, path, tc.opts, tc.n, "h264")
			s := p.Streams[0]
			if s.NbFrames != strconv.Itoa(tc.n) {
				t.Errorf("nb_frames = %s, want %d", s.NbFrames, tc.n)
			}
			want := fmt.Sprintf("%.6f", float64(tc.n)/float64(tc.opts.FPS))
			if s.Duration != want || p.Format.Duration != want {
				t.Errorf("stream duration = %s, format duration = %s, want %s", s.Duration, p.Format.Duration, want)
			}
			if s.StartTime != "0.000000" {
				t.Errorf("start_time = %s, want 0", s.StartTime)
			}
			// pts strictly increasing and evenly spaced: frame i at i/fps exactly.
			bFrames := 0
			for i, f := range p.Frames {
				if want := fmt.Sprintf("%.6f", float64(i)/float64(tc.opts.FPS)); f.PTSTime != want {
					t.Errorf("frame %d pts_time = %s, want %s", i, f.PTSTime, want)
				}
				if i > 0 && f.PTS-p.Frames[i-1].PTS != p.Frames[1].PTS-p.Frames[0].PTS {
					t.Errorf("frame %d: pts step %d differs from %d", i, f.PTS-p.Frames[i-1].PTS, p.Frames[1].PTS)
				}
				if f.PictType == "B" {
					bFrames++
				}
			}
			if tc.opts.Preset != "ultrafast" && bFrames == 0 {
				t.Errorf("no B-frames decoded; the B-frame path is untested")
			}
			if got := strings.Join(topLevelBoxes(t, path), ","); got != "ftyp,moov,mdat" {
				t.Errorf("top-level boxes %s, want ftyp,moov,mdat (faststart)", got)
			}
			checkMP4Boxes(t, path, bFrames > 0, tc.n)
			// The H.264 VUI alone (no container) carries the colour description too.
			if got := bitstreamColour(t, path, "-bsf:v", "h264_mp4toannexb", "-f", "h264"); got != "bt709/bt709/bt709/tv" {
				t.Errorf("H.264 VUI colour (space/transfer/primaries/range) = %s", got)
			}
		})
	}
}

// readMP4 decodes the boxes of the MP4 file at path with mp4ff.
func readMP4(t *testing.T, path string) *mp4.File {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	mf, err := mp4.DecodeFile(f)
	if err != nil {
		t.Fatalf("mp4ff decode: %v", err)
	}
	return mf
}

func checkMP4Boxes(t *testing.T, path string, wantCtts bool, n int) {
	mf := readMP4(t, path)
	trak := mf.Moov.Trak
	stbl := trak.Mdia.Minf.Stbl
	avc1 := stbl.Stsd.AvcX
	if avc1 == nil || avc1.Type() != "avc1" || avc1.AvcC == nil {
		t.Fatalf("sample entry is not avc1 with avcC")
	}
	if c := avc1.AvcC; len(c.SPSnalus) != 1 || len(c.PPSnalus) != 1 || c.AVCProfileIndication != c.SPSnalus[0][1] {
		t.Errorf("avcC: %d SPS, %d PPS, profile %d", len(c.SPSnalus), len(c.PPSnalus), c.AVCProfileIndication)
	}
	var colr *mp4.ColrBox
	for _, c := range avc1.Children {
		if b, ok := c.(*mp4.ColrBox); ok {
			colr = b
		}
	}
	if colr == nil || colr.ColorType != "nclx" || colr.ColorPrimaries != 1 || colr.TransferCharacteristics != 1 || colr.MatrixCoefficients != 1 || colr.FullRangeFlag {
		t.Errorf("colr box = %+v, want nclx 1/1/1 limited", colr)
	}
	if (stbl.Ctts != nil) != wantCtts {
		t.Errorf("ctts present = %v, want %v", stbl.Ctts != nil, wantCtts)
	}
	if stbl.Stss == nil || stbl.Stss.SampleNumber[0] != 1 {
		t.Errorf("stss must list sample 1 as sync")
	}
	if trak.Edts == nil || len(trak.Edts.Elst) != 1 || len(trak.Edts.Elst[0].Entries) != 1 {
		t.Fatalf("missing edit list")
	}
	// Exact timing: 1000 ticks per frame, so n frames last exactly n*1000 ticks.
	fps := mf.Moov.Mvhd.Timescale / 1000
	if ts := trak.Mdia.Mdhd.Timescale; ts != fps*1000 || mf.Moov.Mvhd.Duration != uint64(n)*1000 ||
		trak.Edts.Elst[0].Entries[0].SegmentDuration != uint64(n)*1000 || trak.Mdia.Mdhd.Duration != uint64(n)*1000 {
		t.Errorf("timescale %d, mvhd duration %d, elst %d, mdhd %d; want %d ticks", ts, mf.Moov.Mvhd.Duration,
			trak.Edts.Elst[0].Entries[0].SegmentDuration, trak.Mdia.Mdhd.Duration, n*1000)
	}
}

func TestWebM(t *testing.T) {
	requireFFmpeg(t)
	for _, tc := range []struct {
		name  string
		opts  Options
		n     int
		codec string
	}{
		{"vp9-default-30fps", Options{Format: "webm", Width: 320, Height: 240, FPS: 30}, 45, "vp9"},
		{"vp9-ultrafast-24fps", Options{Format: "webm", Width: 256, Height: 144, FPS: 24, Preset: "ultrafast"}, 50, "vp9"},
		{"vp9-medium-25fps", Options{Format: "webm", Width: 256, Height: 144, FPS: 25, Preset: "medium", Threads: 1}, 30, "vp9"},
		{"vp8-default-30fps", Options{Format: "webm", Codec: "vp8", Width: 320, Height: 240, FPS: 30}, 45, "vp8"},
		{"vp8-medium-7fps", Options{Format: "webm", Codec: "vp8", Width: 160, Height: 120, FPS: 7}, 20, "vp8"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := encodeFrames(t, tc.opts, tc.n)
			p := checkCommon(t, path, tc.opts, tc.n, tc.codec)
			// WebM timestamps are milliseconds: frame i at round(i*1000/fps) ms.
			for i, f := range p.Frames {
				want := (2*int64(i)*1000 + int64(tc.opts.FPS)) / (2 * int64(tc.opts.FPS))
				if f.PTS != want {
					t.Errorf("frame %d pts = %d ms, want %d", i, f.PTS, want)
				}
			}
			checkWebMElements(t, path, tc.opts, tc.n)
			// VP9 signals matrix and range in its bitstream (VP8 has no such fields).
			if tc.codec == "vp9" {
				if got := bitstreamColour(t, path, "-f", "ivf"); !strings.HasPrefix(got, "bt709/") || !strings.HasSuffix(got, "/tv") {
					t.Errorf("VP9 bitstream colour (space/transfer/primaries/range) = %s", got)
				}
			}
		})
	}
}

func checkWebMElements(t *testing.T, path string, opts Options, n int) {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Header  webm.EBMLHeader `ebml:"EBML"`
		Segment struct {
			Info   webmInfo `ebml:"Info"`
			Tracks struct {
				TrackEntry []webmTrackEntry `ebml:"TrackEntry"`
			} `ebml:"Tracks"`
			Cues    webm.Cues      `ebml:"Cues"`
			Cluster []webm.Cluster `ebml:"Cluster"`
		} `ebml:"Segment"`
	}
	if err := ebml.Unmarshal(bytes.NewReader(data), &doc); err != nil {
		t.Fatalf("ebml unmarshal: %v", err)
	}
	seg := doc.Segment
	if want := float64(n) * 1000 / float64(opts.FPS); math.Abs(seg.Info.Duration-want) > 1e-9 {
		t.Errorf("Info.Duration = %v ms, want %v", seg.Info.Duration, want)
	}
	if len(seg.Tracks.TrackEntry) != 1 || seg.Tracks.TrackEntry[0].Video == nil || seg.Tracks.TrackEntry[0].Video.Colour == nil {
		t.Fatalf("track entry without Video/Colour")
	}
	if c := *seg.Tracks.TrackEntry[0].Video.Colour; c != (webmColour{1, 1, 1, 1}) {
		t.Errorf("Colour = %+v, want all 1 (BT.709, limited range)", c)
	}
	if len(seg.Cues.CuePoint) == 0 {
		t.Fatalf("no Cues")
	}
	// Segment data starts after the EBML header and the 12-byte Segment header.
	hdrLen := bytes.Index(data, idSeg) + 12
	for _, cp := range seg.Cues.CuePoint {
		pos := hdrLen + int(cp.CueTrackPositions[0].CueClusterPosition)
		if pos+4 > len(data) || !bytes.Equal(data[pos:pos+4], []byte{0x1F, 0x43, 0xB6, 0x75}) {
			t.Errorf("cue at %d ms points at %d, which is not a Cluster", cp.CueTime, pos)
		}
	}
	blocks := 0
	for _, c := range seg.Cluster {
		blocks += len(c.SimpleBlock)
	}
	if blocks != n {
		t.Errorf("%d SimpleBlocks, want %d", blocks, n)
	}
	if !seg.Cluster[0].SimpleBlock[0].Keyframe {
		t.Errorf("first block is not a keyframe")
	}
}

func TestOptionsValidation(t *testing.T) {
	ok := Options{Format: "mp4", Width: 64, Height: 64, FPS: 30}
	for _, tc := range []struct {
		name   string
		mutate func(*Options)
		code   error
	}{
		{"unknown format", func(o *Options) { o.Format = "avi" }, ErrUnsupportedFormat},
		{"empty format", func(o *Options) { o.Format = "" }, ErrUnsupportedFormat},
		{"vp9 in mp4", func(o *Options) { o.Codec = "vp9" }, ErrUnsupportedFormat},
		{"h264 in webm", func(o *Options) { o.Format, o.Codec = "webm", "h264" }, ErrUnsupportedFormat},
		{"odd width", func(o *Options) { o.Width = 63 }, ErrInvalidOptions},
		{"odd height", func(o *Options) { o.Height = 65 }, ErrInvalidOptions},
		{"zero size", func(o *Options) { o.Width, o.Height = 0, 0 }, ErrInvalidOptions},
		{"negative size", func(o *Options) { o.Width = -64 }, ErrInvalidOptions},
		{"huge size", func(o *Options) { o.Width = 1 << 20 }, ErrInvalidOptions},
		{"fps 0", func(o *Options) { o.FPS = 0 }, ErrInvalidOptions},
		{"fps negative", func(o *Options) { o.FPS = -30 }, ErrInvalidOptions},
		{"fps huge", func(o *Options) { o.FPS = 100000 }, ErrInvalidOptions},
		{"bad preset", func(o *Options) { o.Preset = "turbo" }, ErrInvalidOptions},
		{"crf negative", func(o *Options) { o.CRF = -1 }, ErrInvalidOptions},
		{"crf too high h264", func(o *Options) { o.CRF = 52 }, ErrInvalidOptions},
		{"crf too high vp9", func(o *Options) { o.Format, o.CRF = "webm", 64 }, ErrInvalidOptions},
		{"threads negative", func(o *Options) { o.Threads = -1 }, ErrInvalidOptions},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := ok
			tc.mutate(&o)
			w, err := NewWriter(filepath.Join(t.TempDir(), "x"), o)
			if w != nil || !errors.Is(err, tc.code) {
				t.Fatalf("NewWriter(%+v) = %v, %v; want %v", o, w, err, tc.code)
			}
		})
	}
	n, err := Options{Format: "WebM", Width: 64, Height: 64, FPS: 30}.Normalize()
	if err != nil || n.Codec != CodecVP9 || n.Preset != DefaultPreset || n.CRF != DefaultCRFVP9 || n.Threads < 1 {
		t.Errorf("Normalize defaults = %+v, %v", n, err)
	}
	n, err = ok.Normalize()
	if err != nil || n.Codec != CodecH264 || n.CRF != DefaultCRFH264 {
		t.Errorf("Normalize defaults = %+v, %v", n, err)
	}
	if _, err := NewWriter(filepath.Join(t.TempDir(), "missing", "x.mp4"), ok); err == nil {
		t.Error("missing output directory accepted")
	}
}

func TestWriterErrorsLeaveNothingBehind(t *testing.T) {
	for _, format := range []string{"mp4", "webm"} {
		t.Run(format, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "out."+format)
			opts := Options{Format: format, Width: 64, Height: 48, FPS: 10, Threads: 1}
			code := func(err error) error {
				for _, kind := range []error{ErrInvalidOptions, ErrUnsupportedFormat, ErrInvalidFrame, ErrClosed, ErrEncoder, ErrIO} {
					if errors.Is(err, kind) {
						return kind
					}
				}
				return err
			}

			// Wrong frame sizes are rejected without breaking the writer.
			w, err := NewWriter(path, opts)
			if err != nil {
				t.Fatal(err)
			}
			if c := code(w.WriteRGBA(testPattern(64, 50, 0))); c != ErrInvalidFrame {
				t.Errorf("wrong RGBA size: %s", c)
			}
			if c := code(w.WriteFrame(NewI420(32, 48))); c != ErrInvalidFrame {
				t.Errorf("wrong I420 size: %s", c)
			}
			if c := code(w.WriteFrame(nil)); c != ErrInvalidFrame {
				t.Errorf("nil frame: %s", c)
			}
			if c := code(w.WriteFrame(&I420{Width: 64, Height: 48})); c != ErrInvalidFrame {
				t.Errorf("frame without planes: %s", c)
			}
			if c := code(w.WriteRGBA(nil)); c != ErrInvalidFrame {
				t.Errorf("nil RGBA: %s", c)
			}
			for i := 0; i < 3; i++ {
				if err := w.WriteRGBA(testPattern(64, 48, i)); err != nil {
					t.Fatal(err)
				}
			}
			w.Abort()
			w.Abort()
			if c := code(w.WriteRGBA(testPattern(64, 48, 3))); c != ErrClosed {
				t.Errorf("write after Abort: %s", c)
			}
			if c := code(w.Close()); c != ErrClosed {
				t.Errorf("Close after Abort: %s", c)
			}
			assertEmptyDir(t, dir)

			// Close without frames fails and cleans up.
			w, err = NewWriter(path, opts)
			if err != nil {
				t.Fatal(err)
			}
			if w.Close() == nil {
				t.Error("Close with no frames succeeded")
			}
			assertEmptyDir(t, dir)

			// A closed writer refuses more work; Abort after Close keeps the file.
			w, err = NewWriter(path, opts)
			if err != nil {
				t.Fatal(err)
			}
			if err := w.WriteFrame(NewI420(64, 48)); err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			if c := code(w.Close()); c != ErrClosed {
				t.Errorf("second Close: %s", c)
			}
			if c := code(w.WriteFrame(NewI420(64, 48))); c != ErrClosed {
				t.Errorf("write after Close: %s", c)
			}
			w.Abort()
			if entries, _ := os.ReadDir(dir); len(entries) != 1 || entries[0].Name() != "out."+format {
				t.Errorf("dir after Close = %v, want only the output", entries)
			}
			if w.Frames() != 1 {
				t.Errorf("Frames() = %d", w.Frames())
			}
		})
	}
}

func assertEmptyDir(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		t.Errorf("left behind: %s", e.Name())
	}
}

func TestErrorKinds(t *testing.T) {
	err := errorf(ErrInvalidOptions, "bad %d", 1)
	if !errors.Is(err, ErrInvalidOptions) || errors.Is(err, ErrIO) || err.Error() != "bad 1" {
		t.Errorf("got %v", err)
	}
	inner := errors.New("disk full")
	err = wrapErr(ErrIO, "write", inner)
	if !errors.Is(err, inner) || !errors.Is(err, ErrIO) || err.Error() != "write: disk full" {
		t.Errorf("wrapped error: %v", err)
	}
	if _, err := NewWriter(filepath.Join(t.TempDir(), "missing", "x.mp4"), Options{Format: "mp4", Width: 64, Height: 64, FPS: 30}); !errors.Is(err, ErrIO) || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing output directory: %v", err)
	}
}

// benchEncode reports the encode throughput of 1080p frames, including the final flush
// and muxing. Frames are converted to I420 up front: this measures the encoder.
func benchEncode(b *testing.B, opts Options) {
	const w, h = 1920, 1080
	opts.Width, opts.Height, opts.FPS = w, h, 30
	var frames []*I420
	for i := 0; i < 8; i++ {
		f := NewI420(w, h)
		if err := RGBAToI420(f, testPattern(w, h, i*5), 1); err != nil {
			b.Fatal(err)
		}
		frames = append(frames, f)
	}
	wr, err := NewWriter(filepath.Join(b.TempDir(), "bench."+opts.Format), opts)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	_, p0 := cpuTimes()
	for i := 0; i < b.N; i++ {
		if err := wr.WriteFrame(frames[i%len(frames)]); err != nil {
			b.Fatal(err)
		}
	}
	if err := wr.Close(); err != nil {
		b.Fatal(err)
	}
	_, p1 := cpuTimes()
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/frame")
	b.ReportMetric(float64(p1-p0)/1e6/float64(b.N), "cpu-ms/frame")
}

func BenchmarkEncodeH264Veryfast1080p(b *testing.B) { benchEncode(b, Options{Format: "mp4"}) }
func BenchmarkEncodeVP9Default1080p(b *testing.B)   { benchEncode(b, Options{Format: "webm"}) }
func BenchmarkEncodeVP8Default1080p(b *testing.B) {
	benchEncode(b, Options{Format: "webm", Codec: "vp8"})
}

// TestMP4LargeLayout checks the layout used beyond 4 GiB (co64, 64-bit mdat size) on a
// small file.
func TestMP4LargeLayout(t *testing.T) {
	requireFFmpeg(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "co64.mp4")
	opts := Options{Format: "mp4", Width: 256, Height: 144, FPS: 30}
	w, err := NewWriter(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	w.mux.(*mp4Muxer).forceLarge = true
	for i := 0; i < 20; i++ {
		if err := w.WriteRGBA(testPattern(256, 144, i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	mf := readMP4(t, path)
	if stbl := mf.Moov.Trak.Mdia.Minf.Stbl; stbl.Co64 == nil || stbl.Stco != nil {
		t.Fatalf("want co64 and no stco")
	}
	if mf.Mdat == nil || !mf.Mdat.LargeSize {
		t.Errorf("want a 64-bit mdat size")
	}
	if got := strings.Join(topLevelBoxes(t, path), ","); got != "ftyp,moov,mdat" {
		t.Errorf("top-level boxes %s", got)
	}
	p := ffprobe(t, path)
	if p.Streams[0].NbReadFrames != "20" {
		t.Errorf("decoded %s frames", p.Streams[0].NbReadFrames)
	}
	frames := decodeRGB(t, path, 256, 144)
	for i, fr := range frames {
		if q := imagetest.PSNRRGB(testPattern(256, 144, i), fr); q < 35 {
			t.Errorf("frame %d: PSNR %.2f", i, q)
		}
	}
}

func TestRGBAToI420RejectsMalformedImages(t *testing.T) {
	dst := NewI420(16, 16)
	for _, img := range []*image.RGBA{
		{Pix: make([]byte, 16), Stride: 64, Rect: image.Rect(0, 0, 16, 16)},
		{Pix: make([]byte, 16*16*4), Stride: 8, Rect: image.Rect(0, 0, 16, 16)},
		{Pix: nil, Stride: 64, Rect: image.Rect(-4, -4, 12, 12)},
		{Pix: make([]byte, 64*16), Stride: 64, Rect: image.Rect(0, 0, 16, 15)},
	} {
		if err := RGBAToI420(dst, img, 2); err == nil {
			t.Errorf("accepted %dx%d image with %d bytes, stride %d", img.Rect.Dx(), img.Rect.Dy(), len(img.Pix), img.Stride)
		}
	}
	bad := &I420{Width: 16, Height: 16, Y: make([]byte, 10), YStride: 16}
	if err := RGBAToI420(bad, testPattern(16, 16, 0), 1); err == nil {
		t.Error("accepted an I420 with short planes")
	}
}

func TestSingleFrame(t *testing.T) {
	requireFFmpeg(t)
	for _, opts := range []Options{
		{Format: "mp4", Width: 64, Height: 64, FPS: 24},
		{Format: "webm", Width: 64, Height: 64, FPS: 24},
		{Format: "webm", Codec: "vp8", Width: 64, Height: 64, FPS: 24},
	} {
		t.Run(opts.Format+opts.Codec, func(t *testing.T) {
			path := encodeFrames(t, opts, 1)
			p := ffprobe(t, path)
			if p.Streams[0].NbReadFrames != "1" || p.Format.Duration != "0.041666" && p.Format.Duration != "0.041667" {
				t.Errorf("frames %s, duration %s; want 1 frame of 1/24 s", p.Streams[0].NbReadFrames, p.Format.Duration)
			}
		})
	}
}
