package assets

import "fmt"

// Error is an assets domain error with a stable code that the server maps to a status.
type Error struct {
	Code  string
	Msg   string
	Field string
	// Details, when set, is what a problem's errors member carries (ASSET_TOO_COMPLEX:
	// the measure over its limit).
	Details any
}

func (e *Error) Error() string { return e.Msg }

// ErrorCode returns the stable error code.
func (e *Error) ErrorCode() string { return e.Code }

// ErrorField names the request member at fault, if any.
func (e *Error) ErrorField() string { return e.Field }

// ErrorDetails returns the structured details, if any.
func (e *Error) ErrorDetails() any {
	if e.Details == nil {
		return nil
	}
	return e.Details
}

// Error codes returned by this package.
const (
	// CodeTypeMismatch: the declared Content-Type contradicts the bytes (422).
	CodeTypeMismatch = "ASSET_TYPE_MISMATCH"
	// CodeTypeUnknown: the bytes are of no kind cutroom takes (422).
	CodeTypeUnknown = "ASSET_TYPE_UNKNOWN"
	// CodeInvalid: the bytes are of a known kind but malformed (422).
	CodeInvalid = "ASSET_INVALID"
	// CodeTooComplex: the file's structure asks more work of rendering than the budgets
	// allow (SVG elements after <use> expansion, nesting, path points, filter work; GIF
	// frames; Lottie layers after precomp expansion, nesting, keyframes, frames) (422). The
	// problem's errors member names the measure and its limit.
	CodeTooComplex = "ASSET_TOO_COMPLEX"
	// CodeImageTooLarge: the image's dimensions exceed the decoding limits (422).
	CodeImageTooLarge = "IMAGE_TOO_LARGE"
	// CodeTooLarge: the body exceeds the size cap of its kind (413).
	CodeTooLarge = "PAYLOAD_TOO_LARGE"
	// CodeReferenced: the asset is still referenced and cannot be deleted (409).
	CodeReferenced = "ASSET_REFERENCED"
	// CodeBusy: the workspace's editor states kept changing while a delete checked them
	// for references; retrying later succeeds (503).
	CodeBusy = "ASSET_BUSY"
	// CodeNotFound: no live asset or file of the caller's (404).
	CodeNotFound = "ASSET_NOT_FOUND"
	// CodeBodyUnreadable: the upload body broke off (400).
	CodeBodyUnreadable = "BODY_UNREADABLE"
)

func errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Msg: fmt.Sprintf(format, args...)}
}
