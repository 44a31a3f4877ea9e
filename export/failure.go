package export

import (
	"strings"

	"github.com/cutroom/cutroom/apierr"
)

// Codes in the error of a FAILED task that export itself gives (the task reads
// "<CODE>: <message>"). The render's other codes are defined by the Renderer (package render:
// EXPORT_RENDER_INVALID, COMPOSITOR_..., ENCODE_...).
const (
	CodeFrameTimeout  = "EXPORT_FRAME_TIMEOUT"  // a frame took longer than the watchdog allows
	CodeRenderCrashed = "EXPORT_RENDER_CRASHED" // a crash interrupted the task's render MaxCrashes times
	// CodeAssetFetchFailed: a remote asset could not be fetched when the render began
	// (the message names the asset, its URL and the reason).
	CodeAssetFetchFailed = "EXPORT_ASSET_FETCH_FAILED"
)

// RenderFailure is a render that failed for a reason with a stable code. A Renderer returns
// one (possibly wrapped) so that the FAILED task's error starts with Code; see TaskError.
// It is not an API error: a task's failure is data of the task, never an HTTP answer.
type RenderFailure struct {
	Code string // a stable upper-case code, such as EXPORT_FRAME_TIMEOUT
	Msg  string // what happened, for a person
	Err  error  // the underlying error, or nil
}

func (e *RenderFailure) Error() string { return e.Msg }

// Unwrap returns the underlying error.
func (e *RenderFailure) Unwrap() error { return e.Err }

// TaskError returns the error a FAILED task shows for a render's error: "<CODE>: <message>"
// when err is or wraps a *RenderFailure or an *apierr.Error (a rule of create that a stored
// task breaks), with the first such error's code and err's whole message (which is not
// repeated when it starts with the code already); otherwise "render failed: <message>".
func TaskError(err error) string {
	code := failureCode(err)
	if code == "" {
		return "render failed: " + err.Error()
	}
	msg := err.Error()
	if strings.HasPrefix(msg, code) {
		return msg
	}
	return code + ": " + msg
}

// failureCode returns the code of the first coded error in err's tree (in the order
// errors.As searches it), or "".
func failureCode(err error) string {
	switch e := err.(type) {
	case nil:
		return ""
	case *RenderFailure:
		return e.Code
	case *apierr.Error:
		return e.Code.String()
	case interface{ Unwrap() error }:
		return failureCode(e.Unwrap())
	case interface{ Unwrap() []error }:
		for _, u := range e.Unwrap() {
			if c := failureCode(u); c != "" {
				return c
			}
		}
	}
	return ""
}
