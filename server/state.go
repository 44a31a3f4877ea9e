package server

import (
	"encoding/json"
	"net/http"
)

// requiredStateMembers are the members the editor-state schema requires at the top level.
var requiredStateMembers = []string{"compositionWidth", "compositionHeight", "timebaseTicksPerSecond",
	"tracks", "assets", "items", "transitions"}

// stateSchemaCheck refuses a state that lacks a required top-level member.
func (s *Server) stateSchemaCheck(state []byte) error {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(state, &top); err != nil {
		return fieldError(http.StatusBadRequest, "INVALID_FIELD_TYPE", "editorState", "editorState must be a JSON object")
	}
	for _, m := range requiredStateMembers {
		if _, ok := top[m]; !ok {
			return fieldError(http.StatusUnprocessableEntity, "EDITOR_SCHEMA_INVALID", "editorState/"+m,
				"editorState is missing the required member %q", m)
		}
	}
	return nil
}
