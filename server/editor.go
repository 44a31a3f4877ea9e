package server

import (
	"encoding/json"
	"net/http"
	"slices"
	"strconv"

	"github.com/cutroom/cutroom/editor"
	"github.com/cutroom/cutroom/export"
	"github.com/gin-gonic/gin"
)

type validateRequest struct {
	EditorState json.RawMessage `json:"editorState"`
}

// validateState answers POST /v1/editor/validate as the interface defines it: data is
// {valid, errors} with every issue of the JSON Schema and the semantic rules, in a stable
// order; an invalid state is a successful answer (valid: false). What this server cannot
// resolve or draw for the key's workspace (stateWarnings) does not make a state invalid:
// it is listed in meta.warnings, issues of the same shape, whether the state is valid or
// not. meta.capabilitiesVersion is the capabilities' version.
func (s *Server) validateState(c *gin.Context) {
	req, _, ok := readJSON[validateRequest](s, c)
	if !ok {
		return
	}
	raw, err := requiredState(req.EditorState)
	if err != nil {
		s.fail(c, err)
		return
	}
	st, res := editor.Check(raw)
	warnings, err := s.stateWarnings(c, st)
	if err != nil {
		s.fail(c, err)
		return
	}
	res = res.WithWarnings(warnings...)
	s.ok(c, http.StatusOK, res, map[string]any{"capabilitiesVersion": s.capabilities().Version, "warnings": res.Warnings})
}

// stateWarnings are what this server cannot resolve or draw in st for the caller's
// workspace, as issues: names neither built in nor the workspace's
// (editor.ReferenceIssues with Deps.Names, else the workspace's Deps.Illustrations),
// features the renderer lacks (editor.FeatureIssues with Config.Features), font families
// no font provides (editor.FontIssues with Deps.Fonts) and assets a render could not read
// (Deps.Unresolvable). Export create refuses such a state with the same codes (a missing
// font only with --missing-fonts=refuse; else the task is created with the warning). st may be incomplete (a state that broke the schema): the parts it could not
// read are not checked.
func (s *Server) stateWarnings(c *gin.Context, st *editor.State) ([]editor.Issue, error) {
	if st == nil {
		return nil, nil
	}
	var refs editor.References
	if s.deps.Names != nil {
		var err error
		if refs, err = s.deps.Names(principal(c).Workspace.ID); err != nil {
			return nil, err
		}
	}
	if refs.Illustration == nil {
		own, err := s.workspaceIllustrationNames(c)
		if err != nil {
			return nil, err
		}
		refs.Illustration = func(name string) bool { return slices.Contains(own, name) }
	}
	out := append(editor.ReferenceIssues(st, refs), editor.FeatureIssues(st, s.cfg.Features)...)
	if s.deps.Fonts != nil {
		out = append(out, editor.FontIssues(st, s.deps.Fonts.HasFamily)...)
	}
	if s.deps.Unresolvable != nil {
		for _, u := range s.deps.Unresolvable(principal(c).Workspace.ID, st) {
			out = append(out, editor.Issue{Code: export.ErrAssetUnresolvable.String(), Path: editor.Pointer("assets", u.AssetID),
				Message: "asset " + strconv.Quote(u.AssetID) + " cannot be read for the render: " + u.Reason})
		}
	}
	return out, nil
}

// capabilities returns what this server renders, computed once from Config.Features.
func (s *Server) capabilities() editor.EditorCapabilities { return s.caps }

// getCapabilities answers GET /v1/editor/capabilities, with the item types drawn in
// meta.itemTypes (the interface's capabilities object is closed to other members).
func (s *Server) getCapabilities(c *gin.Context) {
	s.ok(c, http.StatusOK, s.caps, map[string]any{"itemTypes": s.caps.ItemTypes})
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

// listFontFamilies answers GET /v1/fonts: every family the renders of the key's workspace
// can draw text with (the server's font library: embedded, data dir, --fonts, uploaded
// and system fonts), with its weights, styles and sources, sorted by family.
func (s *Server) listFontFamilies(c *gin.Context) {
	fams := s.deps.FontFamilies()
	if fams == nil {
		fams = []FontFamily{}
	}
	s.ok(c, http.StatusOK, fams, nil)
}
