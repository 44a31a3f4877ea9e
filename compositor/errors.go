package compositor

import (
	"errors"
	"fmt"
)

// The kinds of error the compositor returns. Every error from New, RenderFrame, Split and
// the window renderers matches one of them with errors.Is, or is the context's error; its
// text is the message alone (such as `item "a": asset "b" not found`), so callers add their
// own context.
var (
	// ErrBadOutput means the output size, the destination or the frame number is unusable.
	ErrBadOutput = errors.New("compositor: bad output")
	// ErrMedia means an item's or the background's media could not be loaded or decoded.
	ErrMedia = errors.New("compositor: media failed")
	// ErrText means laying out or rasterising a text-like item failed.
	ErrText = errors.New("compositor: text failed")
	// ErrIllustration means an illustration item names no known illustration.
	ErrIllustration = errors.New("compositor: unknown illustration")
	// ErrBadState means the editor state cannot be drawn (none, or a non-positive
	// composition size or timebase).
	ErrBadState = errors.New("compositor: bad state")
)

// failure is an error of the compositor: it reads as its message, and errors.Is matches its
// kind. The cause is in the message only, as text, so that no error of the media or of a
// context is mistaken for the render's own.
type failure struct {
	kind error // one of the Err... values above
	msg  string
}

func (e *failure) Error() string { return e.msg }

func (e *failure) Unwrap() error { return e.kind }

func errf(kind error, format string, a ...any) error {
	return &failure{kind: kind, msg: fmt.Sprintf(format, a...)}
}
