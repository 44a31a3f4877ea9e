package assets

import (
	"errors"

	"github.com/cutroom/cutroom/apierr"
	"github.com/cutroom/cutroom/diskspace"
	"github.com/cutroom/cutroom/storage"
)

// The API codes of this package's rules, each with its kind.
var (
	// CodeTypeMismatch: the declared Content-Type contradicts the bytes.
	CodeTypeMismatch = apierr.Define(apierr.Unprocessable, "ASSET_TYPE_MISMATCH")
	// CodeTypeUnknown: the bytes are of no kind cutroom takes.
	CodeTypeUnknown = apierr.Define(apierr.Unprocessable, "ASSET_TYPE_UNKNOWN")
	// CodeInvalid: the bytes are of a known kind but malformed.
	CodeInvalid = apierr.Define(apierr.Unprocessable, "ASSET_INVALID")
	// CodeTooComplex: the file's structure asks more work of rendering than the budgets
	// allow (SVG elements after <use> expansion, nesting, path points, filter work; GIF
	// frames; Lottie layers after precomp expansion, nesting, keyframes, frames, path
	// points, shapes after repeater copies, embedded images' pixels, side and bytes). The
	// error's details (a problem's errors member) name the measure and its limit.
	CodeTooComplex = apierr.Define(apierr.Unprocessable, "ASSET_TOO_COMPLEX")
	// CodeUnsupported: a file of a known kind, within the budgets, that uses what the
	// renderer does not draw (a Lottie animation with text layers or images that are files
	// or URLs): refused at upload rather than failing an export later.
	CodeUnsupported = apierr.Define(apierr.Unprocessable, "ASSET_UNSUPPORTED")
	// CodeImageTooLarge: the image's dimensions exceed the decoding limits.
	CodeImageTooLarge = apierr.Define(apierr.Unprocessable, "IMAGE_TOO_LARGE")
	// CodeTooLarge: the body exceeds the size cap of its kind (or a file the bytes
	// rendering reads).
	CodeTooLarge = apierr.Define(apierr.TooLarge, "PAYLOAD_TOO_LARGE")
	// CodeReferenced: the asset is still referenced and cannot be deleted.
	CodeReferenced = apierr.Define(apierr.Conflict, "ASSET_REFERENCED")
	// CodeBusy: the workspace's editor states kept changing while a delete checked them
	// for references; retrying later succeeds.
	CodeBusy = apierr.Define(apierr.Unavailable, "ASSET_BUSY")
	// CodeNotFound: no live asset or file of the caller's.
	CodeNotFound = apierr.Define(apierr.NotFound, "ASSET_NOT_FOUND")
	// CodeNotBound: unbinding an asset that is not bound to the project.
	CodeNotBound = apierr.Define(apierr.NotFound, "ASSET_NOT_BOUND")
	// CodeProjectNotFound: an upload or binding names no project of the caller's.
	CodeProjectNotFound = apierr.Define(apierr.NotFound, "PROJECT_NOT_FOUND")
	// CodeBodyRequired: the upload body is empty.
	CodeBodyRequired = apierr.Define(apierr.Invalid, "BODY_REQUIRED")
	// CodeBodyUnreadable: the upload body broke off.
	CodeBodyUnreadable = apierr.Define(apierr.Invalid, "BODY_UNREADABLE")
	// CodeInvalidCursor: a page cursor this server did not hand out.
	CodeInvalidCursor = apierr.Define(apierr.Invalid, "INVALID_PAGE_CURSOR")
)

// recordError turns the asset records' sentinel errors into the errors clients see (with
// the texts they have always had), and a commit that failed for lack of space into
// STORAGE_FULL; other errors pass through.
func recordError(err error, projectID, assetID string) error {
	switch {
	case errors.Is(err, storage.ErrAssetNotFound):
		return CodeNotFound.Wrap(err, "asset %s not found", assetID)
	case errors.Is(err, storage.ErrAssetNotBound):
		return CodeNotBound.Wrap(err, "asset %s is not bound to project %s", assetID, projectID)
	case errors.Is(err, storage.ErrProjectNotFound):
		return CodeProjectNotFound.Wrap(err, "project %s not found", projectID)
	case errors.Is(err, storage.ErrInvalidCursor):
		return CodeInvalidCursor.Wrap(err, "pageCursor is not a cursor this server handed out")
	}
	return diskspace.Refuse(err)
}

// invalid returns an ASSET_INVALID error: the bytes are of a known kind but malformed.
func invalid(format string, args ...any) error {
	return CodeInvalid.New(format, args...)
}
