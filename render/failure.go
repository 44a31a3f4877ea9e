package render

import (
	"errors"

	"github.com/cutroom/cutroom/compositor"
	"github.com/cutroom/cutroom/diskspace"
	"github.com/cutroom/cutroom/encode"
	"github.com/cutroom/cutroom/export"
)

// The codes a render fails a task with (as *export.RenderFailure: the task's error reads
// "<CODE>: <message>"), besides export's own (EXPORT_FRAME_TIMEOUT and the create rules a
// stored task breaks: OUTPUT_SIZE_TOO_LARGE, EXPORT_STATE_EMPTY, EXPORT_TOO_LONG,
// EXPORT_FEATURE_UNSUPPORTED).
const (
	// CodeRenderInvalid means an export.RenderJob is inconsistent (size, fps, format).
	CodeRenderInvalid = "EXPORT_RENDER_INVALID"

	// The compositor's error kinds.
	CodeMediaFailed         = "COMPOSITOR_MEDIA_FAILED"         // compositor.ErrMedia
	CodeTextFailed          = "COMPOSITOR_TEXT_FAILED"          // compositor.ErrText
	CodeIllustrationUnknown = "COMPOSITOR_ILLUSTRATION_UNKNOWN" // compositor.ErrIllustration
	CodeBadOutput           = "COMPOSITOR_BAD_OUTPUT"           // compositor.ErrBadOutput
	CodeBadState            = "COMPOSITOR_BAD_STATE"            // compositor.ErrBadState

	// The encoder's error kinds.
	CodeEncodeInvalidOptions    = "ENCODE_INVALID_OPTIONS"    // encode.ErrInvalidOptions
	CodeEncodeUnsupportedFormat = "ENCODE_UNSUPPORTED_FORMAT" // encode.ErrUnsupportedFormat
	CodeEncodeInvalidFrame      = "ENCODE_INVALID_FRAME"      // encode.ErrInvalidFrame
	CodeEncodeClosed            = "ENCODE_CLOSED"             // encode.ErrClosed
	CodeEncoderFailed           = "ENCODE_ENCODER_FAILED"     // encode.ErrEncoder
	CodeEncodeIO                = "ENCODE_IO"                 // encode.ErrIO

	// CodeStorageFull: writing the output (or a temporary file of it) failed because the
	// disk is full (ENOSPC, EDQUOT): the operator's problem, not the state's, so it reads as
	// such rather than as ENCODE_IO. The API's refusal of a write on a full disk has the
	// same code.
	CodeStorageFull = "STORAGE_FULL"
)

// leafCodes maps the compositor's and the encoder's error kinds to task codes. An encoder
// failure's message starts with its code ("ENCODE_IO: create temporary file: ..."), a
// compositor failure's does not ("item \"a\": asset \"b\" not found"): tasks and
// `cutroom export` have always shown them so.
var leafCodes = []struct {
	kind     error
	code     string
	prefixed bool // the message starts with the code
}{
	{compositor.ErrMedia, CodeMediaFailed, false},
	{compositor.ErrText, CodeTextFailed, false},
	{compositor.ErrIllustration, CodeIllustrationUnknown, false},
	{compositor.ErrBadOutput, CodeBadOutput, false},
	{compositor.ErrBadState, CodeBadState, false},
	{encode.ErrInvalidOptions, CodeEncodeInvalidOptions, true},
	{encode.ErrUnsupportedFormat, CodeEncodeUnsupportedFormat, true},
	{encode.ErrInvalidFrame, CodeEncodeInvalidFrame, true},
	{encode.ErrClosed, CodeEncodeClosed, true},
	{encode.ErrEncoder, CodeEncoderFailed, true},
	{encode.ErrIO, CodeEncodeIO, true},
}

// leafFailure returns an error of the compositor or the encoder as the task failure it is
// (which unwraps to err), and any other error (a context's, the media's) as it is. The
// pipeline applies it where those errors enter it, before adding its own context ("frame
// 12: ..."), so the task shows the code of the failure and the whole message.
func leafFailure(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, encode.ErrIO) && diskspace.IsFull(err) {
		return &export.RenderFailure{Code: CodeStorageFull, Err: err,
			Msg: CodeStorageFull + ": the disk is full; the output could not be written (" + err.Error() + ")"}
	}
	for _, l := range leafCodes {
		if errors.Is(err, l.kind) {
			msg := err.Error()
			if l.prefixed {
				msg = l.code + ": " + msg
			}
			return &export.RenderFailure{Code: l.code, Msg: msg, Err: err}
		}
	}
	return err
}

// invalidJob is the failure of a job the pipeline cannot render as given.
func invalidJob(msg string) error {
	return &export.RenderFailure{Code: CodeRenderInvalid, Msg: msg}
}
