package server

import (
	"crypto/subtle"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"
)

// Metrics counts the answered requests and serves the metrics; *metrics.Metrics implements
// it. The server passes it route templates, never raw paths.
type Metrics interface {
	// ObserveRequest counts one answered request; route is the matched route template
	// (OpenAPI style, "/v1/projects/{projectId}"), "" when no route matched.
	ObserveRequest(method, route string, status int, d time.Duration)
	// Handler serves GET /metrics.
	Handler() http.Handler
}

// RequestIDHeader is the header a request's id is taken from (when it is a usable one) and
// echoed in.
const RequestIDHeader = "X-Request-Id"

// maxRequestIDLen is the longest request id accepted from a client.
const maxRequestIDLen = 128

const requestIDKey = "cutroom.requestId"

// requestID returns the client's id when it is 1..128 characters of [A-Za-z0-9._:/+=@-],
// else a new UUID.
func requestID(sent string) string {
	if sent == "" || len(sent) > maxRequestIDLen {
		return uuid.NewString()
	}
	for i := 0; i < len(sent); i++ {
		c := sent[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("._:/+=@-", c) >= 0) {
			return uuid.NewString()
		}
	}
	return sent
}

// routeTemplate turns gin's route pattern into the OpenAPI style of the interface
// ("/v1/projects/:projectId" -> "/v1/projects/{projectId}", "/files/*fileKey" ->
// "/files/{fileKey}"); "" stays "" (no route matched).
func routeTemplate(fullPath string) string {
	if !strings.ContainsAny(fullPath, ":*") {
		return fullPath
	}
	parts := strings.Split(fullPath, "/")
	for i, p := range parts {
		if p != "" && (p[0] == ':' || p[0] == '*') {
			parts[i] = "{" + p[1:] + "}"
		}
	}
	return strings.Join(parts, "/")
}

// observe is the outermost middleware: it gives the request its id (echoed in
// X-Request-Id), and once the answer is written logs one line (method, route template,
// status, duration, bytes, workspace, request id) and counts it in the metrics. The line
// never holds the raw path or query (they carry ids and link signatures), nor a header.
func (s *Server) observe(c *gin.Context) {
	start := time.Now()
	id := requestID(c.GetHeader(RequestIDHeader))
	c.Set(requestIDKey, id)
	c.Header(RequestIDHeader, id)
	defer func() { // also when a handler's panic (http.ErrAbortHandler) goes on up
		d := time.Since(start)
		route := routeTemplate(matchedRoute(c))
		status := c.Writer.Status()
		if s.deps.Metrics != nil {
			s.deps.Metrics.ObserveRequest(c.Request.Method, route, status, d)
		}
		level := slog.LevelInfo
		if quietRoute(route) && status < 400 {
			level = slog.LevelDebug
		}
		if !s.log.Enabled(c.Request.Context(), level) {
			return
		}
		if route == "" {
			route = "unmatched"
		}
		s.log.LogAttrs(c.Request.Context(), level, "request",
			slog.String("method", c.Request.Method), slog.String("route", route), slog.Int("status", status),
			slog.Float64("durationMs", float64(d.Microseconds())/1000), slog.Int("bytes", max(c.Writer.Size(), 0)),
			slog.String("workspace", principal(c).Workspace.ID), slog.String("requestId", id))
	}()
	c.Next()
}

// matchedRoute is the template of the request's route, or for a CORS preflight the one of
// the route it asked about; "" when none matched.
func matchedRoute(c *gin.Context) string {
	if r := c.FullPath(); r != "" {
		return r
	}
	return c.GetString(preflightRouteKey)
}

// quietRoute reports the routes that monitoring polls: their successful requests are
// logged at debug level, so a scrape every few seconds does not fill the log.
func quietRoute(route string) bool {
	switch route {
	case "/metrics", "/healthz", "/readyz":
		return true
	}
	return false
}

// requestIDOf returns the id observe gave the request.
func requestIDOf(c *gin.Context) string { return c.GetString(requestIDKey) }

// serveMetrics answers GET /metrics; with Config.MetricsToken set it needs that token as
// Authorization: Bearer. No API key is needed or used.
func (s *Server) serveMetrics(c *gin.Context) {
	if s.cfg.MetricsToken != "" {
		auth := strings.TrimSpace(c.GetHeader("Authorization"))
		tok := ""
		if len(auth) > 7 && strings.EqualFold(auth[:7], "bearer ") {
			tok = strings.TrimSpace(auth[7:])
		}
		if subtle.ConstantTimeCompare([]byte(tok), []byte(s.cfg.MetricsToken)) != 1 {
			c.Header("WWW-Authenticate", `Bearer realm="metrics"`)
			s.fail(c, errMetricsToken.New("GET /metrics needs the metrics token (--metrics-token) as Authorization: Bearer <token>"))
			return
		}
	}
	s.deps.Metrics.Handler().ServeHTTP(c.Writer, c.Request)
}
