package server

import (
	"container/list"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/cutroom/cutroom/apierr"
	"github.com/cutroom/cutroom/editor"
	"github.com/cutroom/cutroom/export"
	"github.com/gin-gonic/gin"
)

// Bounds of frame previews.
const (
	// MaxPreviewSide caps both sides of a preview in pixels (a 1080p frame is 1920 wide).
	MaxPreviewSide = 1920
	// DefaultPreviewWidth is a preview's width when the request names none.
	DefaultPreviewWidth = 640
	// DefaultMaxPreviews is how many previews one workspace may have drawing at once
	// (Config.MaxPreviews); beyond it, 429 FRAME_PREVIEWS_BUSY with Retry-After.
	DefaultMaxPreviews = 2
	// previewCacheBytes bounds the encoded previews kept for repeated requests.
	previewCacheBytes = 32 << 20
)

// Previews draws frame previews; the App wires render's still drawer in. nil leaves the
// preview routes unregistered.
type Previews interface {
	// Frame draws the state at millis (ms from the start) width x height pixels and encodes
	// it as format ("png" or "jpeg"). Drawing failures are *export.RenderFailure.
	Frame(ctx context.Context, workspaceID string, st *editor.State, raw []byte, millis int64,
		width, height int, format string) ([]byte, error)
}

// VersionedPreviews is Previews whose pictures of one state depend on more than its bytes
// (the fonts the App has): Version, asked before the ETag is made (and so before Frame),
// is part of the ETag and of the cache's key, so a picture drawn before, and a client's
// copy of it, is not served once it changed.
type VersionedPreviews interface {
	Previews
	Version(ctx context.Context, workspaceID string, st *editor.State) string
}

// previews is the server's side of frame previews: the per-workspace limit and the cache.
type previews struct {
	validator *editor.Validator
	mu        sync.Mutex
	busy      map[string]int
	cache     map[string]*list.Element
	order     *list.List // of *cachedFrame, most recent first
	bytes     int
}

type cachedFrame struct {
	etag string
	body []byte
}

func newPreviews() *previews {
	v, _ := editor.NewValidator()
	return &previews{validator: v, busy: map[string]int{}, cache: map[string]*list.Element{}, order: list.New()}
}

func (p *previews) acquire(ws string, limit int) (func(), error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.busy[ws] >= limit {
		return nil, errFrameBusy.New("this workspace has %d frame previews drawing, the most at once; retry shortly", limit).WithRetryAfter(1)
	}
	p.busy[ws]++
	return func() {
		p.mu.Lock()
		if p.busy[ws]--; p.busy[ws] <= 0 {
			delete(p.busy, ws)
		}
		p.mu.Unlock()
	}, nil
}

func (p *previews) get(etag string) []byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	if el, ok := p.cache[etag]; ok {
		p.order.MoveToFront(el)
		return el.Value.(*cachedFrame).body
	}
	return nil
}

func (p *previews) put(etag string, body []byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.cache[etag]; ok || len(body) > previewCacheBytes/4 {
		return
	}
	p.cache[etag] = p.order.PushFront(&cachedFrame{etag: etag, body: body})
	p.bytes += len(body)
	for p.bytes > previewCacheBytes {
		old := p.order.Remove(p.order.Back()).(*cachedFrame)
		delete(p.cache, old.etag)
		p.bytes -= len(old.body)
	}
}

// frameParams are a preview request's time, width and format.
type frameParams struct {
	t      float64
	width  *int
	format string
}

// parseFrameQuery reads t, width and format of GET .../frame.
func parseFrameQuery(c *gin.Context) (frameParams, error) {
	var fp frameParams
	raw, ok := c.GetQuery("t")
	if !ok {
		return fp, errFieldRequired.Field("t", "t (seconds from the start) is required")
	}
	t, ok := plainDecimal(raw)
	if !ok {
		return fp, errInvalidQuery.Field("t", "t must be a plain decimal number of seconds (digits with an optional fraction, such as 1.5), got %q", truncate(raw, 32))
	}
	fp.t = t
	if raw, ok := c.GetQuery("width"); ok {
		w, err := strconv.Atoi(raw)
		if err != nil {
			return fp, errInvalidQuery.Field("width", "width must be a whole number of pixels, got %q", truncate(raw, 32))
		}
		fp.width = &w
	}
	fp.format = c.Query("format")
	return fp, nil
}

// plainDecimal reads s when it is digits with an optional fraction (1, 0.25), with a
// leading minus sign allowed (the range check refuses it by name): strconv.ParseFloat
// alone would also read hex (0x1p-2), underscores (1_0 as 10), exponents, a leading '+',
// inf and nan, none of which a time in a URL should be.
func plainDecimal(s string) (float64, bool) {
	digits := strings.TrimPrefix(s, "-")
	whole, frac, dot := strings.Cut(digits, ".")
	if whole == "" || dot && frac == "" || strings.TrimLeft(whole, "0123456789") != "" ||
		strings.TrimLeft(frac, "0123456789") != "" {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	return f, err == nil
}

// getProjectFrame answers GET /v1/projects/{projectId}/frame: the saved state at t.
func (s *Server) getProjectFrame(c *gin.Context) {
	id, err := pathUUID(c, "projectId")
	if err != nil {
		s.fail(c, err)
		return
	}
	fp, err := parseFrameQuery(c)
	if err != nil {
		s.fail(c, err)
		return
	}
	_, state, err := s.deps.Projects.ProjectWithState(principal(c).Workspace.ID, id)
	if err != nil {
		s.fail(c, projectError(err, id))
		return
	}
	s.frame(c, state, fp, "")
}

// frameRequest is the body of POST /v1/editor/frame.
type frameRequest struct {
	EditorState json.RawMessage `json:"editorState"`
	T           *float64        `json:"t"`
	Width       *int            `json:"width"`
	Format      *string         `json:"format"`
}

// postEditorFrame answers POST /v1/editor/frame: the body's state at t.
func (s *Server) postEditorFrame(c *gin.Context) {
	req, _, ok := readJSON[frameRequest](s, c)
	if !ok {
		return
	}
	st, err := requiredState(req.EditorState)
	if err != nil {
		s.fail(c, err)
		return
	}
	if req.T == nil {
		s.fail(c, errFieldRequired.Field("t", "t (seconds from the start) is required"))
		return
	}
	fp := frameParams{t: *req.T, width: req.Width}
	if req.Format != nil {
		fp.format = *req.Format
	}
	s.frame(c, st, fp, "editorState")
}

// frame checks a preview request of state, answers 304 or a cached picture when it can,
// and draws it otherwise. field prefixes the state's validation issues ("" for a saved
// state).
func (s *Server) frame(c *gin.Context, state []byte, fp frameParams, field string) {
	format := strings.ToLower(fp.format)
	switch format {
	case "":
		format = "jpeg"
	case "jpg":
		format = "jpeg"
	case "png", "jpeg":
	case "webp":
		s.fail(c, errFrameFormat.Field("format", "this server does not encode webp previews; use png or jpeg"))
		return
	default:
		s.fail(c, errFrameFormat.Field("format", "format must be png or jpeg, got %q", truncate(fp.format, 32)))
		return
	}
	parsed, res := s.previews.validator.Check(state)
	if !res.Valid {
		first := res.Errors[0]
		s.fail(c, editor.APICode(first.Code).Field(field+first.Path, "the editor state is not valid: %s", first.Message).WithDetails(res.Errors))
		return
	}
	w, h := parsed.CompositionWidth, parsed.CompositionHeight
	width := min(w, DefaultPreviewWidth)
	if fp.width != nil {
		width = *fp.width
	}
	if width < 1 || width > MaxPreviewSide {
		s.fail(c, errFrameWidth.Field("width", "width must be 1..%d pixels, got %d", MaxPreviewSide, width))
		return
	}
	height := max(1, int(math.Round(float64(width)*float64(h)/float64(w))))
	if height > MaxPreviewSide {
		s.fail(c, errFrameWidth.Field("width", "a preview %d wide of this %dx%d composition would be %d high; at most %d pixels on each side (lower width)",
			width, w, h, height, MaxPreviewSide))
		return
	}
	dur := float64(parsed.DurationTicks()) / float64(parsed.TimebaseTicksPerSecond)
	if math.IsNaN(fp.t) || fp.t < 0 || fp.t > dur {
		s.fail(c, errFrameTime.Field("t", "t must be 0..%g seconds (the state's duration), got %g", dur, fp.t))
		return
	}
	millis := int64(math.Round(fp.t * 1000))
	ws := principal(c).Workspace.ID
	sum := sha256.Sum256(state)
	version := ""
	if v, ok := s.deps.Previews.(VersionedPreviews); ok {
		version = "/" + v.Version(c.Request.Context(), ws, parsed)
	}
	key := sha256.Sum256([]byte(ws + "/" + hex.EncodeToString(sum[:]) + "/" + strconv.FormatInt(millis, 10) + "/" +
		strconv.Itoa(width) + "/" + format + version))
	etag := `"` + hex.EncodeToString(key[:16]) + `"`
	hdr := c.Writer.Header()
	hdr.Set("ETag", etag)
	hdr.Set("Cache-Control", "private, no-cache")
	if inm := c.GetHeader("If-None-Match"); inm != "" && etagMatches(inm, etag) {
		c.Status(http.StatusNotModified)
		return
	}
	body := s.previews.get(etag)
	if body == nil {
		release, err := s.previews.acquire(ws, s.cfg.MaxPreviews)
		if err != nil {
			hdr.Del("ETag")
			s.fail(c, err)
			return
		}
		body, err = s.deps.Previews.Frame(c.Request.Context(), ws, parsed, state, millis, width, height, format)
		release()
		if err != nil {
			hdr.Del("ETag")
			s.fail(c, frameError(err))
			return
		}
		s.previews.put(etag, body)
	}
	hdr.Set("X-Content-Type-Options", "nosniff")
	c.Data(http.StatusOK, "image/"+format, body)
}

// etagMatches reports whether an If-None-Match value lists etag (or is *).
func etagMatches(inm, etag string) bool {
	for _, v := range strings.Split(inm, ",") {
		v = strings.TrimPrefix(strings.TrimSpace(v), "W/")
		if v == "*" || v == etag {
			return true
		}
	}
	return false
}

// frameError maps a drawing failure to its API code: media that cannot be read is
// FRAME_ASSET_UNRESOLVABLE, a frame over the preview time limit FRAME_RENDER_TIMEOUT, any
// other drawing error FRAME_RENDER_FAILED, each with the render's message in the detail.
func frameError(err error) error {
	var rf *export.RenderFailure
	if !errors.As(err, &rf) || apierr.As(err) != nil {
		return err
	}
	switch rf.Code {
	case "COMPOSITOR_MEDIA_FAILED", "ASSET_NOT_FOUND", "ASSET_INVALID", "MEDIA_DECODER_UNAVAILABLE",
		export.CodeAssetFetchFailed:
		return errFrameAssets.Wrap(err, "an asset of the state cannot be read: %s: %s", rf.Code, rf.Msg)
	case export.CodeFrameTimeout:
		return errFrameTimeout.Wrap(err, "%s; a lighter state (fewer or smaller items) or a smaller width draws sooner", rf.Msg)
	}
	return errFrameRender.Wrap(err, "the frame cannot be drawn: %s: %s", rf.Code, rf.Msg)
}
