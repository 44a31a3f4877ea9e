package encode

import (
	"errors"
	"fmt"
)

// The kinds of error this package returns. Every error from the package matches exactly one
// of them with errors.Is (and its underlying error, if any); its text is the message alone,
// such as `size 63x48 must have an even width and height`, and callers add their context.
var (
	// ErrInvalidOptions means Options failed validation (sizes, frame rate, quality,
	// preset), or Close came before any frame.
	ErrInvalidOptions = errors.New("encode: invalid options")
	// ErrUnsupportedFormat means the format or the format/codec pair is not supported.
	ErrUnsupportedFormat = errors.New("encode: unsupported format")
	// ErrInvalidFrame means a frame or audio passed to the Writer (or to a conversion)
	// does not match the Writer's or the destination's size.
	ErrInvalidFrame = errors.New("encode: invalid frame")
	// ErrClosed means the Writer was used after Close or Abort, or after an earlier error.
	ErrClosed = errors.New("encode: writer closed")
	// ErrEncoder means the codec library or a muxer reported a failure.
	ErrEncoder = errors.New("encode: encoder failed")
	// ErrIO means reading or writing the output or a temporary file failed.
	ErrIO = errors.New("encode: i/o error")
)

// failure is an error of this package: it reads as its message (and its cause's), and
// errors.Is matches its kind and its cause.
type failure struct {
	kind error // one of the Err... values above
	msg  string
	err  error // the underlying error, or nil
}

func (e *failure) Error() string {
	if e.err != nil {
		return e.msg + ": " + e.err.Error()
	}
	return e.msg
}

func (e *failure) Unwrap() []error {
	if e.err != nil {
		return []error{e.kind, e.err}
	}
	return []error{e.kind}
}

func errorf(kind error, format string, args ...any) error {
	return &failure{kind: kind, msg: fmt.Sprintf(format, args...)}
}

func wrapErr(kind error, msg string, err error) error {
	return &failure{kind: kind, msg: msg, err: err}
}
