package text

// Error is the typed error the package returns for bad input or refused work. Its Code is
// stable and machine-readable; see [Error.ErrorCode].
type Error struct {
	// Code is a stable identifier such as "text_layer_too_large" or "font_invalid".
	Code string
	// Msg explains the error to a person.
	Msg string
}

// Error returns the message prefixed with the package name.
func (e *Error) Error() string { return "text: " + e.Msg }

// ErrorCode returns the stable machine-readable code of the error.
func (e *Error) ErrorCode() string { return e.Code }

// Error codes returned by the package.
const (
	// CodeLayerTooLarge means the rendered layer would exceed MaxLayerSize pixels on a side.
	CodeLayerTooLarge = "text_layer_too_large"
	// CodeInvalidStyle means a style value is out of range (negative or non-finite sizes).
	CodeInvalidStyle = "text_invalid_style"
	// CodeTextTooLong means the content exceeds MaxRunes.
	CodeTextTooLong = "text_too_long"
	// CodeNoFont means no font could be loaded at all.
	CodeNoFont = "text_no_font"
	// CodeInternal means shaping or rasterising failed unexpectedly, for example on a
	// malformed font.
	CodeInternal = "text_internal"
	// CodeFontInvalid means a font file is not a usable TrueType/OpenType font.
	CodeFontInvalid = "font_invalid"
	// CodeFontTooLarge means a font file exceeds the size the library reads.
	CodeFontTooLarge = "font_too_large"
)
