package cluster

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/cutroom/cutroom/editor"
	"github.com/cutroom/cutroom/export"
)

// Segment is the frames [First, End) of an export.
type Segment struct{ First, End int64 }

// Encoding is the encoder settings every segment of a render shares (segments are joined
// without re-encoding, so they must be encoded alike).
type Encoding struct {
	Preset string `json:"preset"`
	CRF    int    `json:"crf"`
}

// Job is one segment to render: the message of the work queue.
type Job struct {
	TaskID string `json:"taskId"`
	// Key identifies the render: a hash of the state and every setting below but the
	// segment, so records of another render of the task are not taken for this one's.
	Key      string `json:"key"`
	Index    int    `json:"index"`
	Segments int    `json:"segments"`
	First    int64  `json:"first"`
	End      int64  `json:"end"`
	// State is the SHA-256 (hex) of the editor state, an object of the object store.
	State             string   `json:"state"`
	CompositionWidth  int      `json:"compositionWidth"`
	CompositionHeight int      `json:"compositionHeight"`
	OutputWidth       int      `json:"outputWidth"`
	OutputHeight      int      `json:"outputHeight"`
	Scale             float64  `json:"scale"`
	FPS               int      `json:"fps"`
	Format            string   `json:"format"`
	Frames            int64    `json:"frames"`
	Encoding          Encoding `json:"encoding"`
	// Assets maps the editor asset ids the state draws to the SHA-256 of their files.
	Assets map[string]string `json:"assets"`
	// Illustrations maps the names of the workspace illustrations the state draws (never
	// built-in ones, never the workspace's others) to the SHA-256 of their SVG files.
	Illustrations map[string]string `json:"illustrations,omitempty"`
	// Fonts are the SHA-256 of the font files of the families the state's text names that
	// the coordinator has from uploads or its data dir's fonts directory.
	Fonts []string `json:"fonts,omitempty"`
	// FontFaces[i], when present and not empty, describes the faces of Fonts[i] as the
	// coordinator's font library does where that differs from the file's own tables (the
	// subsets of a family installed with its manifest.json): the worker describes them so.
	// Absent (a coordinator of an earlier release) or empty, the file describes itself.
	FontFaces [][]FontFace `json:"fontFaces,omitempty"`
	// Attempts is how many times a failing render of this segment is tried.
	Attempts int `json:"attempts"`
	// Secret keys the MAC of the segment's done or fail record: the coordinator derives it
	// from its own secret and takes only records signed with it (see the package doc).
	Secret string `json:"secret"`
}

// RenderJob is the export.RenderJob of j (without Parsed and OutputPath, which the worker
// fills in).
func (j *Job) RenderJob(state []byte) export.RenderJob {
	return export.RenderJob{TaskID: j.TaskID, State: state, CompositionWidth: j.CompositionWidth,
		CompositionHeight: j.CompositionHeight, OutputWidth: j.OutputWidth, OutputHeight: j.OutputHeight,
		Scale: j.Scale, FPS: j.FPS, Format: j.Format, Frames: j.Frames}
}

// Done is the record of a finished segment (done.<task>.<index>).
type Done struct {
	Key           string  `json:"key"`
	Worker        string  `json:"worker"`
	Object        string  `json:"object"` // SHA-256 of the segment file
	Bytes         int64   `json:"bytes"`
	First         int64   `json:"first"`
	End           int64   `json:"end"`
	RenderSeconds float64 `json:"renderSeconds"`
	// MAC is the HMAC-SHA256 of the record's other fields, its task and its index, keyed
	// with the job's Secret.
	MAC string `json:"mac"`
}

// Failure is the record of a segment that failed for good (fail.<task>.<index>).
type Failure struct {
	Key     string `json:"key"`
	Worker  string `json:"worker"`
	Code    string `json:"code,omitempty"`
	Message string `json:"message"`
	First   int64  `json:"first"`
	End     int64  `json:"end"`
	// MAC is as Done's.
	MAC string `json:"mac"`
}

// FontFace is how the coordinator's font library describes one face of a font file it
// ships (text.FaceDescription: this package knows no compositor).
type FontFace struct {
	// Index is the face's index in the file (0 but for a collection).
	Index  int    `json:"index,omitempty"`
	Family string `json:"family"`
	// Weight is the CSS weight, 1..1000.
	Weight int  `json:"weight"`
	Italic bool `json:"italic,omitempty"`
	// UnicodeRange is the CSS unicode-range of the characters the face draws; empty for all.
	UnicodeRange string `json:"unicodeRange,omitempty"`
	// Segment is the face's position among its family's @font-face rules.
	Segment int `json:"segment,omitempty"`
}

// FontFile is a font file a job draws and, when the coordinator describes its faces
// otherwise than the file does, how (nil: as the file does).
type FontFile struct {
	Path  string
	Faces []FontFace
}

// Files are the local files a job draws besides its state: on the coordinator the files it
// ships (AssetFilesFunc), on a worker the fetched copies in its cache (RenderSegmentFunc).
type Files struct {
	// Assets maps editor asset ids to files.
	Assets map[string]string
	// Illustrations maps the names of workspace illustrations to their SVG files.
	Illustrations map[string]string
	// Fonts are font files (TTF, OTF, TTC, WOFF, WOFF2) the text of the job may need.
	Fonts []FontFile
}

// RenderSegmentFunc renders frames seg of job to the file dst with the encoder settings
// enc; files are the job's assets, illustrations and fonts as local files. It is the App's
// (package render's RenderSegment).
type RenderSegmentFunc func(ctx context.Context, job export.RenderJob, enc Encoding, seg Segment,
	files Files, dst string) error

// SplitFunc splits job into segments of about seconds each (package render's splitter,
// which moves the cuts so that segments hold about equal work). It must cut a job the same
// way every time: a coordinator that restarts mid-task cuts it again and keeps the
// segments already done.
type SplitFunc func(job export.RenderJob, seconds float64) ([]Segment, error)

// JoinFunc joins the segment files (paths[i] holds the frames segs[i], in order, as
// SplitFunc cut them) with the sound of the whole timeline into job.OutputPath (package
// render's join).
type JoinFunc func(ctx context.Context, job export.RenderJob, enc Encoding, segs []Segment, paths []string) error

// AssetFilesFunc returns the local files job draws that workers need: its assets, its
// workspace illustrations and its uploaded fonts.
type AssetFilesFunc func(ctx context.Context, job export.RenderJob) (Files, error)

// renderKey hashes what makes a render: the state, the settings and the contents of the
// files it draws (an illustration or font replaced while the task was paused makes another
// render, whose segments are all rendered again), and how the fonts' faces are described
// (a family's manifest changed: another render). Without descriptions the key is what it
// was before jobs carried them.
func renderKey(stateHash string, job export.RenderJob, enc Encoding, segSeconds float64,
	assets, illustrations map[string]string, fonts []string, faces [][]FontFace) string {
	var described []string
	for i, f := range faces {
		if len(f) > 0 && i < len(fonts) {
			d, _ := json.Marshal(f)
			described = append(described, fonts[i]+" "+string(d))
		}
	}
	slices.Sort(described)
	fonts = slices.Clone(fonts)
	slices.Sort(fonts)
	fields := []any{stateHash, job.CompositionWidth, job.CompositionHeight, job.OutputWidth,
		job.OutputHeight, job.Scale, job.FPS, job.Format, job.Frames, enc, segSeconds, assets, illustrations, fonts}
	if len(described) > 0 {
		fields = append(fields, described)
	}
	b, _ := json.Marshal(fields)
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:12])
}

// parseState parses a job's state as the export service does.
func parseState(state []byte) (*editor.State, error) {
	p, err := editor.Parse(state)
	if err != nil {
		return nil, fmt.Errorf("parse the state: %w", err)
	}
	return p, nil
}

// fixedSplit is the splitter used when none is given: whole segments of seconds*fps frames.
func fixedSplit(job export.RenderJob, seconds float64) ([]Segment, error) {
	per := max(int64(seconds*float64(job.FPS)), 1)
	var out []Segment
	for f := int64(0); f < job.Frames; f += per {
		out = append(out, Segment{First: f, End: min(f+per, job.Frames)})
	}
	return out, nil
}
