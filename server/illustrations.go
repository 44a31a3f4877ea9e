package server

import (
	"bytes"
	"errors"
	"io"
	"net/http"

	"github.com/cutroom/cutroom/assets"
	"github.com/cutroom/cutroom/illustrations"
	"github.com/cutroom/cutroom/storage"
	"github.com/gin-gonic/gin"
)

// Illustrations keeps a workspace's own illustrations: names bound to uploaded SVG
// assets (storage.DB implements it).
type Illustrations interface {
	PutIllustration(workspaceID, name, assetID string) (previous string, err error)
	Illustrations(workspaceID string) ([]storage.Illustration, error)
}

// headerIllustrationName is the upload header that registers the uploaded SVG as an
// illustration of the workspace.
const headerIllustrationName = "X-Illustration-Name"

// illustrationName returns the upload's x-illustration-name ("" without the header), or
// the problem of a name that breaks the rules.
func (s *Server) illustrationName(c *gin.Context) (string, error) {
	v, present := c.Request.Header[headerIllustrationName]
	if !present {
		return "", nil
	}
	if s.deps.Illustrations == nil {
		return "", errIllustrationName.Field("x-illustration-name", "this server keeps no workspace illustrations")
	}
	name := ""
	if len(v) > 0 {
		name = v[0]
	}
	if err := illustrations.ValidName(name); err != nil {
		if errors.Is(err, illustrations.ErrNameBuiltin) {
			return "", errIllustrationBuiltin.Field("x-illustration-name", "%s; choose another name", err.Error())
		}
		return "", errIllustrationName.Field("x-illustration-name", "%s", err.Error())
	}
	return name, nil
}

// svgBody reads the body's first bytes and refuses one that is not an SVG document;
// otherwise it returns a reader of the whole body, those bytes included.
func svgBody(body io.Reader) (io.Reader, error) {
	head := make([]byte, 4096)
	n, err := io.ReadFull(body, head)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, err
	}
	head = head[:n]
	if n == 0 {
		return bytes.NewReader(nil), nil // the upload refuses the empty body (BODY_REQUIRED)
	}
	if f, ok := assets.Sniff(head); !ok || f.Name != "svg" {
		return nil, errIllustrationNotSVG.Field("body", "an upload with x-illustration-name must be an SVG document")
	}
	return io.MultiReader(bytes.NewReader(head), body), nil
}

// registerIllustration binds name to the uploaded asset and returns the meta of the
// upload's answer: the illustration's name and source, and the asset it replaced.
func (s *Server) registerIllustration(c *gin.Context, name, assetID string) (map[string]any, error) {
	prev, err := s.deps.Illustrations.PutIllustration(principal(c).Workspace.ID, name, assetID)
	if err != nil {
		return nil, err
	}
	var replaced any
	if prev != "" && prev != assetID {
		replaced = prev
	}
	return map[string]any{"illustration": map[string]any{"name": name, "source": illustrations.SourceWorkspace,
		"replacedAssetId": replaced}}, nil
}

// workspaceIllustrationNames lists the names of the caller's workspace's illustrations.
func (s *Server) workspaceIllustrationNames(c *gin.Context) ([]string, error) {
	if s.deps.Illustrations == nil {
		return nil, nil
	}
	list, err := s.deps.Illustrations.Illustrations(principal(c).Workspace.ID)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(list))
	for i, il := range list {
		names[i] = il.Name
	}
	return names, nil
}

// searchIllustrations answers GET /v1/illustrations?q=: the names of the built-in library
// and of the workspace's own illustrations, fuzzy-matched and ranked together, or all of
// them without q. data stays the interface's list of names; meta.illustrations lists the
// same names in the same order with their source (builtin or workspace).
func (s *Server) searchIllustrations(c *gin.Context) {
	q := c.Query("q")
	if len([]rune(q)) > illustrations.MaxQuery {
		s.fail(c, errInvalidQuery.Field("q",
			"q must be at most %d characters", illustrations.MaxQuery))
		return
	}
	own, err := s.workspaceIllustrationNames(c)
	if err != nil {
		s.fail(c, err)
		return
	}
	hits := illustrations.SearchWith(q, own)
	names := make([]string, len(hits))
	for i, h := range hits {
		names[i] = h.Name
	}
	if hits == nil {
		hits = []illustrations.Hit{}
	}
	s.ok(c, http.StatusOK, names, map[string]any{"illustrations": hits})
}
