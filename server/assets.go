package server

import (
	"context"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/cutroom/cutroom/assets"
	"github.com/cutroom/cutroom/model"
	"github.com/gin-gonic/gin"
	"github.com/google/uuid"
)

// Assets stores uploaded files and their records (assets.Store implements it).
type Assets interface {
	Upload(ctx context.Context, up assets.Upload) (model.Asset, error)
	Asset(ctx context.Context, workspaceID, id string) (model.Asset, error)
	DeleteAsset(ctx context.Context, workspaceID, id string) error
	ProjectAssets(ctx context.Context, workspaceID, projectID string, pageSize int, cursor string) ([]model.Asset, string, error)
	WorkspaceAssets(ctx context.Context, workspaceID string, pageSize int, cursor string) ([]model.Asset, string, error)
	BindAsset(ctx context.Context, workspaceID, projectID, assetID string) error
	UnbindAsset(ctx context.Context, workspaceID, projectID, assetID string) error
	// FileURL returns a fresh signed link to the asset's file.
	FileURL(a model.Asset) string
}

// Files opens the files behind signed links (assets.Store implements it).
type Files interface {
	OpenFile(ctx context.Context, requestPath, exp, sig string) (*assets.File, error)
}

// maxFileName is the longest x-file-name the interface allows.
const maxFileName = 512

// assetRecord is the asset record of the interface. width, height and duration
// are null where they do not apply; duration is in seconds.
type assetRecord struct {
	AssetID  string   `json:"assetId"`
	Type     string   `json:"type"`
	Source   string   `json:"source"`
	Filename string   `json:"filename"`
	MimeType string   `json:"mimetype"`
	Size     int64    `json:"size"`
	FileURL  string   `json:"fileUrl"`
	FileKey  string   `json:"fileKey"`
	Width    *int     `json:"width"`
	Height   *int     `json:"height"`
	Duration *float64 `json:"duration"`
}

func (s *Server) recordOf(a model.Asset) assetRecord {
	return assetRecord{AssetID: a.ID, Type: a.Type, Source: a.Source, Filename: a.Filename, MimeType: a.MimeType,
		Size: a.Size, FileURL: s.deps.Assets.FileURL(a), FileKey: a.FileKey, Width: a.Width, Height: a.Height, Duration: a.Duration}
}

// formUpload is the answer to a multipart/form-data body: the interface takes the file's
// bytes as the body, and a second way in (a form's parts, with no declared length to refuse
// early by the kind's cap) is not worth its rules. Said before x-file-name is asked for,
// since adding it would not help.
const formUpload = "a multipart/form-data body (curl -F, an HTML form) is not an upload: send the file's bytes " +
	"as the body with its name in x-file-name (curl --data-binary @photo.jpg -H 'x-file-name: photo.jpg')"

// upload streams the raw body into a new asset; see assets.Store.Upload for the rules.
func (s *Server) upload(c *gin.Context) {
	if mt, _, _ := mime.ParseMediaType(c.GetHeader("Content-Type")); mt == "multipart/form-data" {
		s.fail(c, assets.CodeTypeUnknown.New(formUpload))
		return
	}
	name, present := c.Request.Header["X-File-Name"]
	if !present || len(name) == 0 || name[0] == "" {
		s.fail(c, errFieldRequired.Field("x-file-name", "the x-file-name header (the original file name, 1..%d characters) is required", maxFileName))
		return
	}
	if n := utf8.RuneCountInString(name[0]); n > maxFileName {
		s.fail(c, errFieldTooLong.Field("x-file-name", "x-file-name must be at most %d characters (got %d)", maxFileName, n))
		return
	}
	projectID := ""
	if raw := c.GetHeader("X-Project-Id"); raw != "" {
		id, err := uuid.Parse(raw)
		if err != nil || len(raw) != 36 {
			s.fail(c, errInvalidHeader.Field("x-project-id", "x-project-id must be a UUID, got %q", truncate(raw, 64)))
			return
		}
		projectID = id.String()
	}
	illustration, err := s.illustrationName(c)
	if err != nil {
		s.fail(c, err)
		return
	}
	var body io.Reader = c.Request.Body
	if illustration != "" {
		body, err = svgBody(body)
	}
	// Uploads may be large and slow: bodyDeadline cuts only a body slower than the minimum
	// rate.
	var a model.Asset
	if err == nil {
		a, err = s.deps.Assets.Upload(c.Request.Context(), assets.Upload{WorkspaceID: principal(c).Workspace.ID, ProjectID: projectID,
			FileName: name[0], ContentType: c.GetHeader("Content-Type"), Length: c.Request.ContentLength, Body: body})
	}
	if err != nil && bodyTimedOut(c) {
		err = s.bodyTimeoutProblem()
	}
	var meta map[string]any
	if err == nil && illustration != "" {
		meta, err = s.registerIllustration(c, illustration, a.ID)
	}
	if err != nil {
		s.fail(c, err)
		return
	}
	s.ok(c, http.StatusCreated, s.recordOf(a), meta)
}

func (s *Server) getAsset(c *gin.Context) {
	id, err := pathUUID(c, "assetId")
	if err != nil {
		s.fail(c, err)
		return
	}
	a, err := s.deps.Assets.Asset(c.Request.Context(), principal(c).Workspace.ID, id)
	if err != nil {
		s.fail(c, err)
		return
	}
	s.ok(c, http.StatusOK, s.recordOf(a), nil)
}

func (s *Server) deleteAsset(c *gin.Context) {
	id, err := pathUUID(c, "assetId")
	if err != nil {
		s.fail(c, err)
		return
	}
	if err := s.deps.Assets.DeleteAsset(c.Request.Context(), principal(c).Workspace.ID, id); err != nil {
		s.fail(c, err)
		return
	}
	s.ok(c, http.StatusOK, gin.H{"assetId": id, "deleted": true}, nil)
}

func (s *Server) listProjectAssets(c *gin.Context) {
	pid, err := pathUUID(c, "projectId")
	if err != nil {
		s.fail(c, err)
		return
	}
	s.assetPage(c, pid)
}

// listAssets lists the workspace's assets (GET /v1/assets), newest upload first; with
// ?projectId= only those bound to that project, as GET /v1/projects/{projectId}/assets
// lists them.
func (s *Server) listAssets(c *gin.Context) {
	pid := ""
	if raw, ok := c.GetQuery("projectId"); ok {
		id, err := uuid.Parse(raw)
		if err != nil || len(raw) != 36 {
			s.fail(c, errInvalidQuery.Field("projectId", "projectId must be a UUID, got %q", truncate(raw, 64)))
			return
		}
		pid = id.String()
	}
	s.assetPage(c, pid)
}

// assetPage answers a page of asset records: a project's (projectID set) or the
// workspace's.
func (s *Server) assetPage(c *gin.Context, projectID string) {
	size, cursor, err := pageParams(c, 80, 100)
	if err != nil {
		s.fail(c, err)
		return
	}
	ctx, ws := c.Request.Context(), principal(c).Workspace.ID
	var as []model.Asset
	var next string
	if projectID != "" {
		as, next, err = s.deps.Assets.ProjectAssets(ctx, ws, projectID, size, cursor)
	} else {
		as, next, err = s.deps.Assets.WorkspaceAssets(ctx, ws, size, cursor)
	}
	if err != nil {
		s.fail(c, err)
		return
	}
	out := make([]assetRecord, 0, len(as))
	for _, a := range as {
		out = append(out, s.recordOf(a))
	}
	s.ok(c, http.StatusOK, out, pageMeta(next))
}

type bindAssetRequest struct {
	AssetID *string `json:"assetId"`
}

// bindAsset binds an asset to a project. Binding an asset that is already bound is
// harmless and answers 201 with the same body again.
func (s *Server) bindAsset(c *gin.Context) {
	pid, err := pathUUID(c, "projectId")
	if err != nil {
		s.fail(c, err)
		return
	}
	req, _, ok := readJSON[bindAssetRequest](s, c)
	if !ok {
		return
	}
	if req.AssetID == nil {
		s.fail(c, errFieldRequired.Field("assetId", "assetId is required"))
		return
	}
	aid, err := uuid.Parse(*req.AssetID)
	if err != nil || len(*req.AssetID) != 36 {
		s.fail(c, errInvalidField.Field("assetId", "assetId must be a UUID, got %q", truncate(*req.AssetID, 64)))
		return
	}
	if err := s.deps.Assets.BindAsset(c.Request.Context(), principal(c).Workspace.ID, pid, aid.String()); err != nil {
		s.fail(c, err)
		return
	}
	s.ok(c, http.StatusCreated, gin.H{"projectId": pid, "assetId": aid.String()}, nil)
}

func (s *Server) unbindAsset(c *gin.Context) {
	pid, err := pathUUID(c, "projectId")
	if err != nil {
		s.fail(c, err)
		return
	}
	aid, err := pathUUID(c, "assetId")
	if err != nil {
		s.fail(c, err)
		return
	}
	if err := s.deps.Assets.UnbindAsset(c.Request.Context(), principal(c).Workspace.ID, pid, aid); err != nil {
		s.fail(c, err)
		return
	}
	s.ok(c, http.StatusOK, gin.H{"projectId": pid, "assetId": aid, "deleted": true}, nil)
}

// serveFile answers a signed file link: no API key, the signature is the authorisation.
// Range requests, conditional requests and HEAD are handled by serveContent.
func (s *Server) serveFile(c *gin.Context) {
	q := c.Request.URL.Query()
	f, err := s.deps.Files.OpenFile(c.Request.Context(), c.Request.URL.EscapedPath(), q.Get("exp"), q.Get("sig"))
	if err != nil {
		s.fail(c, err)
		return
	}
	defer f.Content.Close()
	h := c.Writer.Header()
	h.Set("Content-Type", f.MimeType)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Disposition", contentDisposition(f.Inline, f.Filename))
	h.Set("Cache-Control", "private, max-age=300")
	h.Set("Access-Control-Allow-Origin", "*")
	if !f.Inline {
		h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; sandbox")
	}
	s.serveContent(c, f.ModTime, f.Content)
}

// contentDisposition builds a Content-Disposition with an ASCII fallback filename and the
// exact name as an RFC 5987 filename*.
func contentDisposition(inline bool, name string) string {
	kind := "attachment"
	if inline {
		kind = "inline"
	}
	var ascii strings.Builder
	for _, r := range name {
		if r < 0x20 || r > 0x7e || r == '"' || r == '\\' || r == '%' || r == ';' {
			ascii.WriteByte('_')
		} else {
			ascii.WriteRune(r)
		}
	}
	return fmt.Sprintf(`%s; filename="%s"; filename*=UTF-8''%s`, kind, ascii.String(), rfc5987(name))
}

// rfc5987 percent-encodes a value for an ext-value (attr-char stays as is).
func rfc5987(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		ch := s[i]
		if ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9' || strings.IndexByte("!#$&+-.^_`|~", ch) >= 0 {
			b.WriteByte(ch)
		} else {
			fmt.Fprintf(&b, "%%%02X", ch)
		}
	}
	return b.String()
}
