package editor

// Error is a failure of an editor operation with a stable machine-readable code.
type Error struct {
	Code string // one of the Code... constants
	Msg  string // a human-readable description
	Path string // JSON pointer to the offending member, or empty
}

// Error returns the message, prefixed with the path when there is one.
func (e *Error) Error() string {
	if e.Path != "" {
		return e.Code + " at " + e.Path + ": " + e.Msg
	}
	return e.Code + ": " + e.Msg
}

// ErrorCode returns the machine-readable code.
func (e *Error) ErrorCode() string { return e.Code }

// Codes of errors and validation issues. The first five are the codes the interface names;
// the others name one semantic rule each.
const (
	CodeSchemaInvalid             = "EDITOR_SCHEMA_INVALID"
	CodeEffectTypeInvalid         = "EDITOR_EFFECT_TYPE_INVALID"
	CodeFilterTypeInvalid         = "EDITOR_FILTER_TYPE_INVALID"
	CodeTransitionTypeInvalid     = "EDITOR_TRANSITION_TYPE_INVALID"
	CodeTransitionClipNotAdjacent = "EDITOR_TRANSITION_CLIP_NOT_ADJACENT"

	// CodeInvalidJSON: the body is not JSON, or not an object.
	CodeInvalidJSON = "EDITOR_INVALID_JSON"
)
