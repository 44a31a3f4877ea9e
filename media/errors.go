package media

import "github.com/cutroom/cutroom/apierr"

// The API codes of decoding errors, each with its kind. The asset codes are the asset
// store's (package assets defines the same codes for uploads: a code is its name and kind),
// so a render failing on an asset answers as it always has.
var (
	// CodeNotFound: no file for the asset (ASSET_NOT_FOUND).
	CodeNotFound = apierr.Define(apierr.NotFound, "ASSET_NOT_FOUND")
	// CodeInvalid: the file cannot be decoded (ASSET_INVALID).
	CodeInvalid = apierr.Define(apierr.Unprocessable, "ASSET_INVALID")
	// CodeImageTooLarge: the image is more pixels than rendering decodes (IMAGE_TOO_LARGE).
	CodeImageTooLarge = apierr.Define(apierr.Unprocessable, "IMAGE_TOO_LARGE")
	// CodeTooLarge: the file is more bytes than rendering reads (PAYLOAD_TOO_LARGE).
	CodeTooLarge = apierr.Define(apierr.TooLarge, "PAYLOAD_TOO_LARGE")
	// CodeDecoderMissing: a video or compressed audio asset needs ffmpeg, which is not
	// available.
	CodeDecoderMissing = apierr.Define(apierr.Unprocessable, "MEDIA_DECODER_UNAVAILABLE")
)

// invalid returns an ASSET_INVALID error: the file cannot be decoded.
func invalid(format string, args ...any) error {
	return CodeInvalid.New(format, args...)
}
