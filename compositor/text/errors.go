package text

import (
	"errors"
	"fmt"
)

// The kinds of error the package returns for bad input or refused work. Every error from
// the package matches one of them with errors.Is and reads "text: <message>".
var (
	// ErrLayerTooLarge means the rendered layer would exceed MaxLayerSize pixels on a side.
	ErrLayerTooLarge = errors.New("text: layer too large")
	// ErrInvalidStyle means a style value is out of range (negative or non-finite sizes).
	ErrInvalidStyle = errors.New("text: invalid style")
	// ErrTextTooLong means the content exceeds MaxRunes.
	ErrTextTooLong = errors.New("text: text too long")
	// ErrNoFont means no font could be loaded at all.
	ErrNoFont = errors.New("text: no font")
	// ErrInternal means shaping or rasterising failed unexpectedly, for example on a
	// malformed font.
	ErrInternal = errors.New("text: internal error")
	// ErrFontInvalid means a font file is not a usable TrueType/OpenType font.
	ErrFontInvalid = errors.New("text: font invalid")
	// ErrFontTooLarge means a font file exceeds the size the library reads.
	ErrFontTooLarge = errors.New("text: font too large")
)

// failure is an error of the package: it reads "text: " and its message, and errors.Is
// matches its kind.
type failure struct {
	kind error // one of the Err... values above
	msg  string
}

func (e *failure) Error() string { return "text: " + e.msg }

func (e *failure) Unwrap() error { return e.kind }

func errorf(kind error, format string, args ...any) error {
	return &failure{kind: kind, msg: fmt.Sprintf(format, args...)}
}
