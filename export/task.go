package export

import (
	"context"
	"math"
	"net/url"
	"strconv"
	"time"

	"github.com/cutroom/cutroom/editor"
	"github.com/cutroom/cutroom/model"
	"github.com/cutroom/cutroom/signedlink"
)

// Renderer draws the frames of a job and writes the finished video file. It is the seam
// between task management (this package's Service) and the frame pipeline (state ->
// compositor -> encoder -> file), which serve plugs in.
//
// Contract:
//   - Render writes the whole file to job.OutputPath atomically: a temporary file in the
//     same directory, fsync, then rename (encode.Writer.Close does exactly this). On any
//     error, including a cancel, nothing may be left at OutputPath; temporary files in its
//     directory are removed by the Service anyway.
//   - Render stops promptly (within a frame or so) when ctx is done and returns ctx's error.
//   - progress(done, total) reports frames written out of total; calls may come from any
//     goroutine but not concurrently.
type Renderer interface {
	Render(ctx context.Context, job RenderJob, progress func(done, total int64)) error
}

// Featured is implemented by renderers that draw only part of editor state v1. Creates of
// states using a feature outside Features (editor.UnsupportedFeatures) are refused with
// EXPORT_FEATURE_UNSUPPORTED naming them. A renderer without it draws everything.
type Featured interface {
	Features() editor.FeatureSet
}

// StateChecker is implemented by renderers that cannot draw some contents of a state that
// its features do not name (an inline Lottie document over the budget or reading files).
// Create refuses a state it names reasons for with EXPORT_FEATURE_UNSUPPORTED listing them.
type StateChecker interface {
	CheckState(st *editor.State) []string
}

// RenderJob is everything a Renderer needs for one task.
type RenderJob struct {
	TaskID      string
	WorkspaceID string
	// State is the editor state snapshot, byte for byte as stored with the task.
	State []byte
	// Parsed is the parsed, validated view of State.
	Parsed *editor.State
	// CompositionWidth and CompositionHeight are the composition size to draw (the request's
	// override, or the state's own); the frame is scaled to the output size.
	CompositionWidth, CompositionHeight int
	// OutputWidth and OutputHeight are the video's size: the composition size x Scale,
	// rounded to even numbers.
	OutputWidth, OutputHeight int
	Scale                     float64
	FPS                       int
	// Format is "mp4" or "webm".
	Format string
	// Frames is the number of frames to render: editor.FrameCount of the state's duration.
	Frames int64
	// OutputPath is where the finished file goes (see the Renderer contract).
	OutputPath string
}

// Webhook event types.
const (
	EventStarted   = "EXPORT_STARTED"
	EventCompleted = "EXPORT_COMPLETED"
	EventFailed    = "EXPORT_FAILED"
)

// Export phases while PROCESSING.
const (
	PhaseRendering = "rendering"
	PhaseSaving    = "saving"
	PhaseFinishing = "finishing"
)

// TaskView is an export task as the API and webhooks show it (the interface's task
// record). Nullable members are always present, as null when unset.
type TaskView struct {
	TaskID                string  `json:"taskId"`
	ProjectID             *string `json:"projectId"`
	CreatedByAPIKeyID     string  `json:"createdByApiKeyId"`
	ClientTaskID          *string `json:"clientTaskId"`
	Status                string  `json:"status"`
	Progress              float64 `json:"progress"`
	ExportPhase           *string `json:"exportPhase"`
	Error                 *string `json:"error"`
	OutputURL             *string `json:"outputUrl"`
	Filename              string  `json:"filename"`
	DurationSeconds       float64 `json:"durationSeconds"`
	BilledStandardSeconds int64   `json:"billedStandardSeconds"`
	ChargedCredits        string  `json:"chargedCredits"`
	CallbackURL           *string `json:"callbackUrl"`
	CreatedAt             string  `json:"createdAt"`
	CompletedAt           *string `json:"completedAt"`
	// Warnings are what the task's render draws other than the state says (font families
	// no font provides, drawn with the fallback), each {code, path, message} like a
	// validate warning; empty when none.
	Warnings []model.Warning `json:"warnings"`
}

// CreateResult is the data of the create routes (the interface's create result).
// DurationSeconds is the length of the video; a task's own durationSeconds is the real
// render duration.
type CreateResult struct {
	TaskID                string  `json:"taskId"`
	ProjectID             *string `json:"projectId"`
	CreatedAt             string  `json:"createdAt"`
	DurationSeconds       float64 `json:"durationSeconds"`
	BilledStandardSeconds int64   `json:"billedStandardSeconds"`
	ChargedCredits        string  `json:"chargedCredits"`
	ChargedCreditPool     string  `json:"chargedCreditPool"`
}

func resultOf(t *model.ExportTask) CreateResult {
	return CreateResult{TaskID: t.ID, ProjectID: t.ProjectID, CreatedAt: model.Timestamp(t.CreatedAt),
		DurationSeconds: round3(t.VideoSeconds), BilledStandardSeconds: t.BilledStandardSeconds,
		ChargedCredits: strconv.FormatInt(t.ChargedCredits, 10), ChargedCreditPool: t.CreditPool}
}

func round3(f float64) float64 { return math.Round(f*1000) / 1000 }

// Links signs and checks the expiring download links of outputs:
// {base}/outputs/{taskId}/{filename}?exp=<unix seconds>&sig=<hex HMAC-SHA256 over the
// path and the expiry>, with the same signer (and secret) as asset file links.
type Links struct {
	base   string
	signer *signedlink.Signer
}

// NewLinks returns a signer for links under publicURL.
func NewLinks(publicURL string, signer *signedlink.Signer) *Links {
	return &Links{base: publicURL, signer: signer}
}

// OutputPath returns the path part of an output link.
func OutputPath(taskID, filename string) string {
	return "/outputs/" + url.PathEscape(taskID) + "/" + url.PathEscape(filename)
}

// URL returns the signed link to a task's output, valid until exp.
func (l *Links) URL(taskID, filename string, exp time.Time) string {
	return l.base + l.signer.SignUntil(OutputPath(taskID, filename), exp)
}

// Verify reports whether sig signs the link of taskID/filename with expiry exp.
func (l *Links) Verify(taskID, filename string, exp int64, sig string) bool {
	return l.signer.Signed(OutputPath(taskID, filename), exp, sig)
}

// View returns the task as the API shows it now.
func (s *Service) View(t *model.ExportTask) TaskView {
	v := TaskView{TaskID: t.ID, ProjectID: t.ProjectID, CreatedByAPIKeyID: t.CreatedByKeyID,
		ClientTaskID: t.ClientTaskID, Status: t.Status, Progress: math.Round(t.Progress*10) / 10,
		Error: t.Error, Filename: t.Filename, DurationSeconds: round3(t.RenderSeconds),
		BilledStandardSeconds: t.BilledStandardSeconds, ChargedCredits: strconv.FormatInt(t.ChargedCredits, 10),
		CallbackURL: t.CallbackURL, CreatedAt: model.Timestamp(t.CreatedAt), Warnings: t.Warnings}
	if v.Warnings == nil {
		v.Warnings = []model.Warning{}
	}
	if t.Status == model.StatusProcessing && t.Phase != "" {
		p := t.Phase
		v.ExportPhase = &p
	}
	if t.CompletedAt != nil {
		c := model.Timestamp(*t.CompletedAt)
		v.CompletedAt = &c
	}
	if t.OutputServed(s.now()) {
		u := s.links.URL(t.ID, t.Filename, *t.OutputExpiresAt)
		v.OutputURL = &u
	}
	return v
}
