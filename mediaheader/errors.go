package mediaheader

import "github.com/cutroom/cutroom/apierr"

// CodeInvalid: a header breaks its format's rules (truncated, a chunk missing or out of
// order). It is the asset store's and the decoders' ASSET_INVALID: a code is its name and
// kind, so both answer a malformed file with it as they do their own.
var CodeInvalid = apierr.Define(apierr.Unprocessable, "ASSET_INVALID")
