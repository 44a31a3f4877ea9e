package server

import (
	"context"
	"mime"
	"net/http"
	"strings"

	"github.com/cutroom/cutroom/export"
	"github.com/cutroom/cutroom/model"
	"github.com/cutroom/cutroom/storage"
	"github.com/gin-gonic/gin"
	"github.com/google/uuid"
)

// Exports manages export tasks; *export.Service implements it.
type Exports interface {
	Create(ctx context.Context, p model.Principal, projectID string, req *export.Request,
		idem *storage.IdempotencyRecord) (export.Created, error)
	Task(workspaceID, id string) (export.TaskView, error)
	List(workspaceID string, pageSize int, cursor, createdByKeyID string) ([]export.TaskView, string, error)
	Cancel(workspaceID, id string) (export.TaskView, error)
	OpenOutput(taskID, filename, exp, sig string) (*export.Output, error)
}

// createExport serves both create routes. A new task answers 201; without an
// Idempotency-Key, a clientTaskId the workspace used before answers the earlier task's
// create result as the first answer did, 201 (the interface declares no other success
// status for create), with Idempotent-Replayed: true.
func (s *Server) createExport(c *gin.Context, projectID string) {
	req, body, ok := readJSON[export.Request](s, c)
	if !ok {
		return
	}
	pr := principal(c)
	ctx := c.Request.Context()
	s.idempotent(c, body, func(rec *storage.IdempotencyRecord) (int, []byte, error) {
		created, err := s.deps.Exports.Create(ctx, pr, projectID, &req, rec)
		if err != nil {
			return 0, nil, err
		}
		if !created.New {
			c.Header("Idempotent-Replayed", "true")
		}
		return http.StatusCreated, created.Data, nil
	})
}

func (s *Server) createStatelessExport(c *gin.Context) { s.createExport(c, "") }

func (s *Server) createProjectExport(c *gin.Context) {
	id, err := pathUUID(c, "projectId")
	if err != nil {
		s.fail(c, err)
		return
	}
	s.createExport(c, id)
}

// taskIDParam returns the taskId path parameter; ids this server never hands out are
// simply not found.
func taskIDParam(c *gin.Context) (string, error) {
	raw := c.Param("taskId")
	id, err := uuid.Parse(raw)
	if err != nil || len(raw) != 36 {
		return "", errTaskNotFound.New("export task %q not found", truncate(raw, 64))
	}
	return id.String(), nil
}

func (s *Server) getExport(c *gin.Context) {
	id, err := taskIDParam(c)
	if err != nil {
		s.fail(c, err)
		return
	}
	v, err := s.deps.Exports.Task(principal(c).Workspace.ID, id)
	if err != nil {
		s.fail(c, err)
		return
	}
	s.ok(c, http.StatusOK, v, nil)
}

func (s *Server) listExports(c *gin.Context) {
	size, cursor, err := pageParams(c, 20, 50)
	if err != nil {
		s.fail(c, err)
		return
	}
	keyID := c.Query("createdByApiKeyId")
	if keyID != "" {
		u, err := uuid.Parse(keyID)
		if err != nil || len(keyID) != 36 {
			s.fail(c, errInvalidQuery.Field("createdByApiKeyId",
				"createdByApiKeyId must be a UUID, got %q", truncate(keyID, 64)))
			return
		}
		keyID = u.String()
	}
	vs, next, err := s.deps.Exports.List(principal(c).Workspace.ID, size, cursor, keyID)
	if err != nil {
		s.fail(c, err)
		return
	}
	s.ok(c, http.StatusOK, vs, pageMeta(next))
}

func (s *Server) cancelExport(c *gin.Context) {
	id, err := taskIDParam(c)
	if err != nil {
		s.fail(c, err)
		return
	}
	v, err := s.deps.Exports.Cancel(principal(c).Workspace.ID, id)
	if err != nil {
		s.fail(c, err)
		return
	}
	s.ok(c, http.StatusOK, v, nil)
}

// getOutput serves a finished export through its signed, expiring link, with Range support.
func (s *Server) getOutput(c *gin.Context) {
	name := strings.TrimPrefix(c.Param("filename"), "/")
	out, err := s.deps.Exports.OpenOutput(c.Param("taskId"), name, c.Query("exp"), c.Query("sig"))
	if err != nil {
		s.fail(c, err)
		return
	}
	defer out.Close()
	h := c.Writer.Header()
	h.Set("Content-Type", out.ContentType)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": out.Name}))
	h.Set("Cache-Control", "private, no-transform")
	s.serveContent(c, out.ModTime, out)
}
