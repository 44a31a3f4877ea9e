package editor

import "github.com/cutroom/cutroom/apierr"

// Codes of errors and validation issues. The first five are the codes the interface names;
// the others name one semantic rule each (semantic.go, limits.go). An issue carries its
// code as a string (the errors member of a problem lists issues); APICode gives the API
// code of the same name.
const (
	CodeSchemaInvalid             = "EDITOR_SCHEMA_INVALID"
	CodeEffectTypeInvalid         = "EDITOR_EFFECT_TYPE_INVALID"
	CodeFilterTypeInvalid         = "EDITOR_FILTER_TYPE_INVALID"
	CodeTransitionTypeInvalid     = "EDITOR_TRANSITION_TYPE_INVALID"
	CodeTransitionClipNotAdjacent = "EDITOR_TRANSITION_CLIP_NOT_ADJACENT"

	// CodeInvalidJSON: the body is not JSON, or not an object.
	CodeInvalidJSON = "EDITOR_INVALID_JSON"
)

// interfaceCodes are the codes above as API codes. Every editor code is Unprocessable: the
// request was well-formed JSON, and the state it carries breaks a rule.
var interfaceCodes = []apierr.Code{
	apierr.Define(apierr.Unprocessable, "EDITOR_SCHEMA_INVALID"),
	apierr.Define(apierr.Unprocessable, "EDITOR_EFFECT_TYPE_INVALID"),
	apierr.Define(apierr.Unprocessable, "EDITOR_FILTER_TYPE_INVALID"),
	apierr.Define(apierr.Unprocessable, "EDITOR_TRANSITION_TYPE_INVALID"),
	apierr.Define(apierr.Unprocessable, "EDITOR_TRANSITION_CLIP_NOT_ADJACENT"),
	apierr.Define(apierr.Unprocessable, "EDITOR_INVALID_JSON"),
}

// APICode returns the API code of an editor code (an Issue's Code or a Code... constant);
// a code this package does not define reads as EDITOR_SCHEMA_INVALID.
func APICode(code string) apierr.Code {
	for _, list := range [][]apierr.Code{interfaceCodes, semanticCodes, limitCodes, referenceCodes} {
		for _, c := range list {
			if c.String() == code {
				return c
			}
		}
	}
	return interfaceCodes[0]
}

// newError returns the error of an editor operation: its detail reads "CODE at PATH: msg",
// or "CODE: msg" without a path (path is a JSON pointer into the state, not a request field).
func newError(code, path, msg string) *apierr.Error {
	if path != "" {
		return APICode(code).New("%s at %s: %s", code, path, msg)
	}
	return APICode(code).New("%s: %s", code, msg)
}
