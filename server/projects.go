package server

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/cutroom/cutroom/diskspace"
	"github.com/cutroom/cutroom/model"
	"github.com/cutroom/cutroom/storage"
	"github.com/gin-gonic/gin"
	"github.com/google/uuid"
)

// Limits of the project routes, as the interface's limits state them.
const (
	maxTitle        = 120
	maxDescription  = 500
	maxStateVersion = 32
	defaultTitle    = "Untitled project"
)

type projectSummary struct {
	ProjectID   string  `json:"projectId"`
	Title       string  `json:"title"`
	Description *string `json:"description"`
	CreatedAt   string  `json:"createdAt"`
	UpdatedAt   string  `json:"updatedAt"`
}

func summaryOf(p model.Project) projectSummary {
	return projectSummary{ProjectID: p.ID, Title: p.Title, Description: p.Description,
		CreatedAt: model.Timestamp(p.CreatedAt), UpdatedAt: model.Timestamp(p.UpdatedAt)}
}

type createProjectRequest struct {
	Title        optString       `json:"title"`
	Description  optString       `json:"description"`
	EditorState  json.RawMessage `json:"editorState"`
	StateVersion optString       `json:"stateVersion"`
}

type syncProjectRequest struct {
	EditorState  json.RawMessage `json:"editorState"`
	StateVersion optString       `json:"stateVersion"`
}

type patchProjectRequest struct {
	Title        optString       `json:"title"`
	Description  optString       `json:"description"`
	EditorState  json.RawMessage `json:"editorState"`
	StateVersion optString       `json:"stateVersion"`
}

// stateVersionFor returns the caller's state version, or one derived from the state's bytes
// when the caller sent none (the same state always gets the same version).
func stateVersionFor(sent optString, state []byte) string {
	if sent.Value != nil && *sent.Value != "" {
		return *sent.Value
	}
	sum := sha256.Sum256(state)
	return hex.EncodeToString(sum[:8])
}

// requiredState returns a body's editorState without surrounding space, or the
// FIELD_REQUIRED problem when it is missing or null (projects, validate and frame previews).
func requiredState(raw json.RawMessage) ([]byte, error) {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || string(t) == "null" {
		return nil, errFieldRequired.Field("editorState", "editorState is required")
	}
	return t, nil
}

// checkEditorState makes sure editorState is present and passes the schema check.
func (s *Server) checkEditorState(raw json.RawMessage) error {
	t, err := requiredState(raw)
	if err != nil {
		return err
	}
	if t[0] != '{' {
		return errInvalidFieldType.Field("editorState", "editorState must be a JSON object")
	}
	return s.stateSchemaCheck(t)
}

func (s *Server) createProject(c *gin.Context) {
	req, body, ok := readJSON[createProjectRequest](s, c)
	if !ok {
		return
	}
	if err := firstError(
		checkLen("title", req.Title.Value, maxTitle),
		checkLen("description", req.Description.Value, maxDescription),
		checkLen("stateVersion", req.StateVersion.Value, maxStateVersion),
		s.checkEditorState(req.EditorState),
	); err != nil {
		s.fail(c, err)
		return
	}
	pr := principal(c)
	s.idempotent(c, body, func(rec *storage.IdempotencyRecord) (int, []byte, error) {
		now := s.now().UTC()
		state := bytes.TrimSpace(req.EditorState)
		p := model.Project{ID: uuid.NewString(), WorkspaceID: pr.Workspace.ID, Title: defaultTitle,
			Description: req.Description.Value, StateVersion: stateVersionFor(req.StateVersion, state),
			CreatedAt: now, UpdatedAt: now}
		if req.Title.Value != nil {
			p.Title = *req.Title.Value
		}
		data, err := json.Marshal(summaryOf(p))
		if err != nil {
			return 0, nil, err
		}
		if rec != nil {
			rec.Data = data
		}
		if err := s.deps.Projects.CreateProject(p, state, rec); err != nil {
			return 0, nil, projectError(err, p.ID)
		}
		return http.StatusCreated, data, nil
	})
}

func (s *Server) listProjects(c *gin.Context) {
	size, cursor, err := pageParams(c, 20, 50)
	if err != nil {
		s.fail(c, err)
		return
	}
	ps, next, err := s.deps.Projects.ListProjects(principal(c).Workspace.ID, size, cursor)
	if errors.Is(err, storage.ErrInvalidCursor) {
		err = errInvalidPageCursor.Wrap(err, "pageCursor is not a cursor this server handed out")
	}
	if err != nil {
		s.fail(c, err)
		return
	}
	out := make([]projectSummary, 0, len(ps))
	for _, p := range ps {
		out = append(out, summaryOf(p))
	}
	s.ok(c, http.StatusOK, out, pageMeta(next))
}

// getProject answers with the state exactly as it was sent: the envelope is assembled around
// the stored bytes instead of re-encoding them.
func (s *Server) getProject(c *gin.Context) {
	id, err := pathUUID(c, "projectId")
	if err != nil {
		s.fail(c, err)
		return
	}
	p, state, err := s.deps.Projects.ProjectWithState(principal(c).Workspace.ID, id)
	if err != nil {
		s.fail(c, projectError(err, id))
		return
	}
	head, err := json.Marshal(summaryOf(p))
	if err != nil {
		s.fail(c, err)
		return
	}
	version, _ := json.Marshal(p.StateVersion)
	var b bytes.Buffer
	b.Grow(len(head) + len(state) + 96)
	b.WriteString(`{"data":`)
	b.Write(head[:len(head)-1])
	b.WriteString(`,"editorState":`)
	b.Write(state)
	b.WriteString(`,"stateVersion":`)
	b.Write(version)
	b.WriteString(`},"meta":{}}`)
	c.Data(http.StatusOK, "application/json; charset=utf-8", b.Bytes())
}

func (s *Server) patchProject(c *gin.Context) {
	id, err := pathUUID(c, "projectId")
	if err != nil {
		s.fail(c, err)
		return
	}
	req, _, ok := readJSON[patchProjectRequest](s, c)
	if !ok {
		return
	}
	if req.EditorState != nil || req.StateVersion.Set {
		s.fail(c, errFieldNotPatchable.Field("editorState",
			"PATCH changes only title and description; send the editor state to POST /v1/projects/{projectId}/sync"))
		return
	}
	if req.Title.Set && req.Title.Value == nil {
		s.fail(c, errInvalidFieldType.Field("title", "title must be a string"))
		return
	}
	if err := firstError(checkLen("title", req.Title.Value, maxTitle), checkLen("description", req.Description.Value, maxDescription)); err != nil {
		s.fail(c, err)
		return
	}
	p, err := s.deps.Projects.PatchProject(principal(c).Workspace.ID, id, req.Title.Value, req.Description.Value, req.Description.Set)
	if err != nil {
		s.fail(c, projectError(err, id))
		return
	}
	s.ok(c, http.StatusOK, gin.H{"projectId": p.ID, "title": p.Title, "description": p.Description,
		"updatedAt": model.Timestamp(p.UpdatedAt)}, nil)
}

func (s *Server) syncProject(c *gin.Context) {
	id, err := pathUUID(c, "projectId")
	if err != nil {
		s.fail(c, err)
		return
	}
	ws := principal(c).Workspace.ID
	if ok, wait := s.limiter.allow(ws + "/" + id); !ok {
		s.fail(c, newRateLimited(wait))
		return
	}
	req, _, ok := readJSON[syncProjectRequest](s, c)
	if !ok {
		return
	}
	if err := firstError(checkLen("stateVersion", req.StateVersion.Value, maxStateVersion), s.checkEditorState(req.EditorState)); err != nil {
		s.fail(c, err)
		return
	}
	state := bytes.TrimSpace(req.EditorState)
	p, err := s.deps.Projects.SyncProject(ws, id, state, stateVersionFor(req.StateVersion, state))
	if err != nil {
		s.fail(c, projectError(err, id))
		return
	}
	s.ok(c, http.StatusOK, gin.H{"projectId": p.ID, "stateVersion": p.StateVersion, "updatedAt": model.Timestamp(p.UpdatedAt)}, nil)
}

func (s *Server) deleteProject(c *gin.Context) {
	id, err := pathUUID(c, "projectId")
	if err != nil {
		s.fail(c, err)
		return
	}
	if err := s.deps.Projects.DeleteProject(principal(c).Workspace.ID, id); err != nil {
		s.fail(c, projectError(err, id))
		return
	}
	s.ok(c, http.StatusOK, gin.H{"projectId": id, "deleted": true}, nil)
}

// projectError answers storage's ErrProjectNotFound for project id, and a commit that
// failed for lack of space with STORAGE_FULL; other errors pass.
func projectError(err error, id string) error {
	if errors.Is(err, storage.ErrProjectNotFound) {
		return errProjectNotFound.Wrap(err, "project %s not found", id)
	}
	return diskspace.Refuse(err)
}

func firstError(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}
