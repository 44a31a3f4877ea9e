package encode

import "fmt"

// Error codes returned by this package in Error.Code.
const (
	// CodeInvalidOptions means Options failed validation (sizes, frame rate, quality, preset).
	CodeInvalidOptions = "ENCODE_INVALID_OPTIONS"
	// CodeUnsupportedFormat means the format or the format/codec pair is not supported.
	CodeUnsupportedFormat = "ENCODE_UNSUPPORTED_FORMAT"
	// CodeInvalidFrame means a frame passed to the Writer does not match the Writer's size.
	CodeInvalidFrame = "ENCODE_INVALID_FRAME"
	// CodeClosed means the Writer was used after Close or Abort, or after an earlier error.
	CodeClosed = "ENCODE_CLOSED"
	// CodeEncoder means the codec library reported a failure.
	CodeEncoder = "ENCODE_ENCODER_FAILED"
	// CodeIO means reading or writing the output or a temporary file failed.
	CodeIO = "ENCODE_IO"
)

// Error is a typed error carrying a stable code that callers map to their own errors.
type Error struct {
	// Code is one of the Code* constants.
	Code string
	// Msg is a human-readable description.
	Msg string
	// Err is the underlying error, if any.
	Err error
}

// Error returns the message, prefixed with the code.
func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Msg, e.Err)
	}
	return e.Code + ": " + e.Msg
}

// ErrorCode returns the error's stable code.
func (e *Error) ErrorCode() string { return e.Code }

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

func errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Msg: fmt.Sprintf(format, args...)}
}

func wrapErr(code, msg string, err error) *Error {
	return &Error{Code: code, Msg: msg, Err: err}
}
