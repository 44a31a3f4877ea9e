package server

import (
	"encoding/json"
	"net/http"

	"github.com/cutroom/cutroom/editor"
	"github.com/gin-gonic/gin"
)

type validateRequest struct {
	EditorState json.RawMessage `json:"editorState"`
}

// validateState answers POST /v1/editor/validate: the schema and every semantic rule, all
// issues in a stable order. An invalid state is a successful answer (valid: false).
func (s *Server) validateState(c *gin.Context) {
	body, err := readBody(c)
	if err != nil {
		s.fail(c, err)
		return
	}
	var req validateRequest
	if err := decodeJSON(body, &req); err != nil {
		s.fail(c, err)
		return
	}
	st, err := requiredState(req.EditorState)
	if err != nil {
		s.fail(c, err)
		return
	}
	res := editor.Validate(st)
	if res.Valid {
		more, err := s.stateNameIssues(c, st)
		if err != nil {
			s.fail(c, err)
			return
		}
		res = res.WithIssues(more...)
	}
	s.ok(c, http.StatusOK, res, map[string]any{"capabilitiesVersion": s.capabilities().Version})
}

// capabilities returns what this server renders, computed once from Config.Features.
func (s *Server) capabilities() editor.EditorCapabilities { return s.caps }

// getCapabilities answers GET /v1/editor/capabilities.
func (s *Server) getCapabilities(c *gin.Context) {
	s.ok(c, http.StatusOK, s.caps, nil)
}

// listFonts answers GET /v1/editor/fonts: the font families text items can name, matched
// case-insensitively by the font's own family name.
func (s *Server) listFonts(c *gin.Context) {
	fams := []string{}
	if s.deps.Fonts != nil {
		fams = append(fams, s.deps.Fonts.Families()...)
	}
	s.ok(c, http.StatusOK, fams, nil)
}
