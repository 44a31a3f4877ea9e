package render

import (
	"context"
	"errors"
	"fmt"
	"math"

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

// RenderSegment renders frames [seg.First, seg.End) of job, video only, into a file of
// job's container (mp4 or webm) at dst (job.OutputPath is not used): the pipeline's codec,
// preset and quality, the first frame a keyframe (IDR), timestamps starting at 0 (frame
// seg.First of the export is the file's frame 0). Every segment of a job rendered with the
// same PipelineConfig has the same decoder configuration, so JoinSegments (or segjoin.Join)
// can join them without re-encoding. The file is written to a temporary name, synced and
// renamed; on error or cancel (which stops it as it stops Render) nothing is left at dst
// or beside it. Errors are the task failures Render returns.
func (p *Pipeline) RenderSegment(ctx context.Context, job export.RenderJob, seg Segment, dst string) (SegmentInfo, error) {
	return SegmentInfo{}, errors.ErrUnsupported
}

// JoinSegments joins the rendered segments of job, in order and without re-encoding, with
// job's sound mixed once for the whole timeline, into job.OutputPath (temp file, fsync,
// rename; nothing is left on error or cancel). The segments must cover the export's frames
// from 0 without a gap or overlap and share their decoder configuration: a segment that
// differs is refused (EXPORT_SEGMENT_MISMATCH) naming it. progress, when set, is called
// with the frames joined so far.
func (p *Pipeline) JoinSegments(ctx context.Context, job export.RenderJob, segs []SegmentFile, progress func(done, total int64)) error {
	return errors.ErrUnsupported
}
