package server

import (
	"fmt"

	"github.com/cutroom/cutroom/editor"
)

// stateSchemaCheck refuses a state that breaks the editor-state JSON Schema, with every
// validation issue in the problem's errors member. Semantic rules are not checked here:
// project create and sync store work in progress (autosave); exports require a fully valid
// state.
func (s *Server) stateSchemaCheck(state []byte) error {
	res := editor.ValidateSchema(state)
	if res.Valid {
		return nil
	}
	first := res.Errors[0]
	detail := fmt.Sprintf("editorState does not match the editor-state schema: %s at %q", first.Message, first.Path)
	if n := len(res.Errors) - 1; n > 0 {
		detail += fmt.Sprintf(" (and %d more; see errors)", n)
	}
	return editor.APICode(editor.CodeSchemaInvalid).Field("editorState", "%s", detail).WithDetails(res.Errors)
}
