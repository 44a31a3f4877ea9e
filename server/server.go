package server

import (
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/cutroom/cutroom/assets"
	"github.com/cutroom/cutroom/editor"
	"github.com/cutroom/cutroom/model"
	"github.com/cutroom/cutroom/storage"
	"github.com/gin-gonic/gin"
)

// Config is the server's configuration. Zero values take the documented defaults.
type Config struct {
	// PublicURL is the base of links the server hands out, e.g. http://127.0.0.1:8787.
	PublicURL string
	// AllowedHosts are the Host header values accepted (host names, without port). When
	// empty, every host is accepted; `serve` fills it when bound to loopback, to stop DNS
	// rebinding.
	AllowedHosts []string
	// MaxBodyBytes caps JSON request bodies (default DefaultMaxBodyBytes); larger bodies get
	// 413.
	MaxBodyBytes int64
	// BodyBudgetBytes is the most bytes of JSON request bodies the server reads and decodes
	// at once, across requests (default 4 x MaxBodyBytes, DefaultBodyBudgetBytes with the
	// default cap; raised to MaxBodyBytes if lower). A request that does not fit gets 503
	// SERVER_BUSY with Retry-After.
	BodyBudgetBytes int64
	// MinBodyRate (bytes per second, default DefaultMinBodyRate) and BodyGrace (default
	// DefaultBodyGrace) bound how slowly a request body may arrive: byte n must arrive by
	// BodyGrace + n/MinBodyRate after the headers, and no read waits longer than BodyGrace;
	// else 408 BODY_TIMEOUT and the connection is closed.
	MinBodyRate int64
	BodyGrace   time.Duration
	// ReadHeaderTimeout bounds reading a request's headers (default DefaultReadHeaderTimeout).
	ReadHeaderTimeout time.Duration
	// SyncRate and SyncBurst are the per-project token bucket of the sync route (default 2
	// per second, burst 10).
	SyncRate  float64
	SyncBurst int
	// IdempotencyTTL is how long Idempotency-Key records are kept (default 24 h).
	IdempotencyTTL time.Duration
	// Now returns the current time; time.Now when nil.
	Now func() time.Time
	// Logger receives request and error logs; slog.Default() when nil.
	Logger *slog.Logger
	// Features is what the renderer draws; capabilities advertise exactly this.
	Features editor.FeatureSet
	// MetricsToken, when set, is the bearer token GET /metrics needs (--metrics-token);
	// empty serves the metrics to anyone who reaches the server.
	MetricsToken string
	// AdminToken guards the operator's routes under /admin/ (online backups); empty, they
	// are not served (404).
	AdminToken string
	// EventHeartbeat is the time between heartbeat comments of an event stream (default
	// DefaultEventHeartbeat); a stream also checks its key then.
	EventHeartbeat time.Duration
	// MaxEventStreams is the most event streams one API key may have open (default
	// DefaultMaxEventStreams); beyond it, 429 EVENT_STREAMS_LIMIT with Retry-After.
	MaxEventStreams int
	// MaxPreviews is how many frame previews one workspace may have drawing at once
	// (default DefaultMaxPreviews); beyond it, 429 FRAME_PREVIEWS_BUSY with Retry-After.
	MaxPreviews int
	// CORSOrigins are the origins whose pages may call the API from a browser
	// (--cors-origins): exact origins as ParseCORSOrigins accepts them, or "*" alone for any.
	// Empty, answers carry no CORS headers and preflights are refused as any OPTIONS is.
	CORSOrigins []string
}

// Accounts authenticates API keys.
type Accounts interface {
	Authenticate(secret string) (model.Principal, error)
}

// Projects stores projects.
type Projects interface {
	CreateProject(p model.Project, state []byte, idem *storage.IdempotencyRecord) error
	Project(workspaceID, id string) (model.Project, error)
	ProjectWithState(workspaceID, id string) (model.Project, []byte, error)
	ListProjects(workspaceID string, pageSize int, cursor string) ([]model.Project, string, error)
	PatchProject(workspaceID, id string, title, description *string, setDescription bool) (model.Project, error)
	SyncProject(workspaceID, id string, state []byte, stateVersion string) (model.Project, error)
	DeleteProject(workspaceID, id string) error
}

// Idempotency stores the outcomes of create requests made with an Idempotency-Key.
type Idempotency interface {
	Idempotency(scope string) (*storage.IdempotencyRecord, error)
}

// Fonts is the font library renders draw text with.
type Fonts interface {
	// Families returns the family names, sorted (GET /v1/editor/fonts).
	Families() []string
	// HasFamily reports whether a font of the family exists (one name of a font-family
	// list): the validate route's missing-font warnings (editor.FontIssues).
	HasFamily(name string) bool
}

// FontFamily is a family of GET /v1/fonts: its weights and styles, and where its faces come
// from (FontSource...), the most preferred first (Source).
type FontFamily struct {
	Family  string   `json:"family"`
	Weights []int    `json:"weights"`
	Styles  []string `json:"styles"`
	Source  string   `json:"source"`
	Sources []string `json:"sources"`
}

// The sources of GET /v1/fonts, from the most preferred to the least (among faces that match
// a style equally well).
const (
	FontSourceUploaded = "uploaded" // a font asset uploaded to the server
	FontSourceDataDir  = "dataDir"  // <data-dir>/fonts (cutroom fonts add, import)
	FontSourceFontsDir = "fontsDir" // a directory of serve --fonts
	FontSourceEmbedded = "embedded" // compiled into the binary
	FontSourceSystem   = "system"   // the system's font directories (--system-fonts)
)

// Deps are the domain services the handlers call; main wires concrete types in.
type Deps struct {
	Accounts    Accounts
	Projects    Projects
	Idempotency Idempotency
	// Fonts lists the font families of GET /v1/editor/fonts and tells the validate route
	// which exist (missing-font warnings); nil lists none and checks none.
	Fonts Fonts
	// FontFamilies lists the families of GET /v1/fonts with their faces' weights, styles
	// and sources; nil leaves the route unregistered.
	FontFamilies func() []FontFamily
	// Exports serves the export routes and output links; nil leaves them unregistered.
	Exports Exports
	// Assets and Files serve uploads, asset records, project bindings and signed file
	// links; both may be nil in tests that do not use them.
	Assets Assets
	Files  Files
	// Health runs the readiness checks of GET /readyz; nil leaves /readyz unregistered
	// (GET /healthz is always there).
	Health Health
	// Metrics counts the requests and serves GET /metrics (no API key); nil leaves both out.
	Metrics Metrics
	// Backups serves GET /admin/backup when Config.AdminToken is set; nil leaves it
	// unregistered.
	Backups Backups
	// Console serves the web console at GET / and GET /console/*path (console.Handler);
	// nil leaves both unregistered.
	Console http.Handler
	// Previews draws GET /v1/projects/{id}/frame and POST /v1/editor/frame; nil leaves them
	// unregistered.
	Previews Previews
	// Webhooks reads a task's webhook deliveries (GET /v1/exports/{taskId}/webhooks); nil
	// leaves that route unregistered.
	Webhooks Webhooks
	// Illustrations keeps the workspaces' own illustrations (uploads with
	// x-illustration-name, GET /v1/illustrations); nil keeps none and refuses the header.
	Illustrations Illustrations
	// Names gives what a workspace's states may name beyond the built-in sets, for the
	// validate route's warnings (editor.ReferenceIssues); nil (or no Illustration in what
	// it gives) takes the workspace's names from Illustrations, and checks no background
	// image.
	Names func(workspaceID string) (editor.References, error)
	// Unresolvable lists the assets of a workspace's state a render could not read, for
	// the validate route's warnings (EXPORT_ASSET_UNRESOLVABLE, as export create refuses
	// them; export.Config.Unresolvable); nil checks none.
	Unresolvable func(workspaceID string, st *editor.State) []assets.Unresolved
}

// Server is cutroom's HTTP interface.
type Server struct {
	cfg      Config
	deps     Deps
	log      *slog.Logger
	now      func() time.Time
	engine   *gin.Engine
	limiter  *syncLimiter
	inflight inflight
	budget   *bodyBudget
	hosts    map[string]bool
	caps     editor.EditorCapabilities
	streams  *eventStreams
	previews *previews
	// corsPolicy answers cross-origin requests; nil without Config.CORSOrigins.
	corsPolicy *corsPolicy
}

// New builds the server and its routes.
func New(cfg Config, deps Deps) *Server {
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if cfg.BodyBudgetBytes <= 0 {
		cfg.BodyBudgetBytes = 4 * cfg.MaxBodyBytes
	}
	cfg.BodyBudgetBytes = max(cfg.BodyBudgetBytes, cfg.MaxBodyBytes)
	if cfg.MinBodyRate <= 0 {
		cfg.MinBodyRate = DefaultMinBodyRate
	}
	if cfg.BodyGrace <= 0 {
		cfg.BodyGrace = DefaultBodyGrace
	}
	if cfg.ReadHeaderTimeout <= 0 {
		cfg.ReadHeaderTimeout = DefaultReadHeaderTimeout
	}
	if cfg.SyncRate <= 0 {
		cfg.SyncRate = DefaultSyncRate
	}
	if cfg.SyncBurst <= 0 {
		cfg.SyncBurst = DefaultSyncBurst
	}
	if cfg.IdempotencyTTL <= 0 {
		cfg.IdempotencyTTL = 24 * time.Hour
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.EventHeartbeat <= 0 {
		cfg.EventHeartbeat = DefaultEventHeartbeat
	}
	if cfg.MaxEventStreams <= 0 {
		cfg.MaxEventStreams = DefaultMaxEventStreams
	}
	if cfg.MaxPreviews <= 0 {
		cfg.MaxPreviews = DefaultMaxPreviews
	}
	s := &Server{streams: newEventStreams(), previews: newPreviews(), cfg: cfg, deps: deps, log: cfg.Logger, now: cfg.Now,
		limiter:  newSyncLimiter(cfg.SyncRate, cfg.SyncBurst, cfg.Now),
		inflight: inflight{keys: map[string]struct{}{}}, caps: editor.Capabilities(cfg.Features),
		budget: &bodyBudget{limit: cfg.BodyBudgetBytes}}
	if len(cfg.AllowedHosts) > 0 {
		s.hosts = map[string]bool{}
		for _, h := range cfg.AllowedHosts {
			s.hosts[strings.ToLower(strings.Trim(h, "[]"))] = true
		}
	}
	gin.SetMode(gin.ReleaseMode)
	e := gin.New()
	e.HandleMethodNotAllowed = true
	// A path with a trailing slash is not another name of the path without it (GET
	// /v1/exports/ is 404 ROUTE_NOT_FOUND, not a redirect to the task list): the interface
	// describes no such aliases.
	e.RedirectTrailingSlash = false
	e.ContextWithFallback = true
	// cors comes before checkHost, so that a page of an allowed origin can read a
	// HOST_NOT_ALLOWED refusal.
	e.Use(s.observe, s.recoverer, s.bodyDeadline, s.cors, s.checkHost)
	e.NoRoute(func(c *gin.Context) {
		s.fail(c, errRouteNotFound.New("no route %s %s", c.Request.Method, c.Request.URL.Path))
	})
	e.NoMethod(func(c *gin.Context) {
		s.fail(c, errMethodNotAllowed.New("method %s is not allowed on %s", c.Request.Method, c.Request.URL.Path))
	})
	s.engine = e
	s.routes()
	s.corsPolicy = newCORS(cfg.CORSOrigins, e)
	return s
}

// Handler returns the HTTP handler.
func (s *Server) Handler() http.Handler { return s.engine }

// HTTPServer wraps the handler in an http.Server with timeouts fit to be left running. There
// is no ReadTimeout: request bodies get a deadline that moves with the bytes received
// (bodyDeadline), so uploads of any size go through at a sane rate.
func (s *Server) HTTPServer(addr string) *http.Server {
	hs := &http.Server{
		Addr:              addr,
		Handler:           s.engine,
		ReadHeaderTimeout: s.cfg.ReadHeaderTimeout,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
	hs.RegisterOnShutdown(s.CloseStreams) // event streams never go idle: end them
	return hs
}

func (s *Server) routes() {
	s.healthRoutes()
	s.engine.GET("/v1/openapi.json", s.getOpenAPI)
	if s.deps.Console != nil {
		s.engine.GET("/", gin.WrapH(s.deps.Console))
		s.engine.GET("/console/*path", gin.WrapH(s.deps.Console))
	}
	v1 := s.engine.Group("/v1", s.authenticate)
	// Capabilities, validate and illustrations need a valid key but not runtime access.
	v1.GET("/editor/capabilities", s.getCapabilities)
	v1.POST("/editor/validate", s.limitBody, s.validateState)
	v1.GET("/illustrations", s.searchIllustrations)
	v1.GET("/editor/fonts", s.listFonts)
	if s.deps.FontFamilies != nil {
		v1.GET("/fonts", s.listFontFamilies)
	}
	rt := v1.Group("", s.requireRuntime)
	rt.POST("/projects", s.limitBody, s.createProject)
	rt.GET("/projects", s.listProjects)
	rt.GET("/projects/:projectId", s.getProject)
	rt.PATCH("/projects/:projectId", s.limitBody, s.patchProject)
	rt.POST("/projects/:projectId/sync", s.limitBody, s.syncProject)
	rt.DELETE("/projects/:projectId", s.deleteProject)
	if s.deps.Exports != nil {
		rt.POST("/projects/:projectId/exports", s.limitBody, s.createProjectExport)
		rt.POST("/exports", s.limitBody, s.createStatelessExport)
		rt.GET("/exports", s.listExports)
		if _, ok := s.deps.Exports.(TaskEvents); ok {
			rt.GET("/exports/events", s.exportEvents)
		}
		if _, ok := s.deps.Exports.(UsageReporter); ok {
			rt.GET("/usage", s.getUsage)
		}
		rt.GET("/exports/:taskId", s.getExport)
		rt.DELETE("/exports/:taskId", s.cancelExport)
		if s.deps.Webhooks != nil {
			rt.GET("/exports/:taskId/webhooks", s.getTaskWebhooks)
		}
		// Output links are signed and expiring; they need no API key.
		s.engine.GET("/outputs/:taskId/:filename", s.getOutput)
		s.engine.HEAD("/outputs/:taskId/:filename", s.getOutput)
	}
	if s.deps.Previews != nil {
		rt.GET("/projects/:projectId/frame", s.getProjectFrame)
		rt.POST("/editor/frame", s.limitBody, s.postEditorFrame)
	}
	if s.deps.Assets != nil {
		rt.POST("/uploads", s.upload)
		rt.GET("/assets", s.listAssets)
		rt.GET("/assets/:assetId", s.getAsset)
		rt.DELETE("/assets/:assetId", s.deleteAsset)
		rt.GET("/projects/:projectId/assets", s.listProjectAssets)
		rt.POST("/projects/:projectId/assets", s.limitBody, s.bindAsset)
		rt.DELETE("/projects/:projectId/assets/:assetId", s.unbindAsset)
	}
	if s.deps.Files != nil {
		s.engine.GET("/files/*fileKey", s.serveFile)
		s.engine.HEAD("/files/*fileKey", s.serveFile)
	}
	if s.deps.Metrics != nil {
		s.engine.GET("/metrics", s.serveMetrics)
	}
	s.adminRoutes()
}

// recoverer answers a panic with a 500 problem and logs it; the server keeps running.
func (s *Server) recoverer(c *gin.Context) {
	defer func() {
		if r := recover(); r != nil {
			if r == http.ErrAbortHandler {
				panic(r)
			}
			s.fail(c, fmt.Errorf("panic: %v", r))
		}
	}()
	c.Next()
}

// checkHost refuses requests whose Host header is not one the server answers to, which
// stops DNS-rebinding attacks on a server bound to loopback.
func (s *Server) checkHost(c *gin.Context) {
	if !s.hostAllowed(c.Request) {
		s.fail(c, errHostNotAllowed.New("host %q is not served here; use the address the server listens on or --public-url", c.Request.Host))
	}
}

// hostAllowed reports whether the request's Host header is one the server answers to.
func (s *Server) hostAllowed(r *http.Request) bool {
	if s.hosts == nil {
		return true
	}
	host := r.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	return s.hosts[strings.ToLower(strings.Trim(host, "[]"))]
}

// LoopbackHosts returns the Host values a server bound to loopback answers to, plus the host
// of publicURL.
func LoopbackHosts(publicURL string) []string {
	hosts := []string{"localhost", "127.0.0.1", "::1"}
	if u, err := url.Parse(publicURL); err == nil && u.Hostname() != "" {
		hosts = append(hosts, u.Hostname())
	}
	return hosts
}

// inflight tracks idempotency scopes whose first request is still being processed.
type inflight struct {
	mu   sync.Mutex
	keys map[string]struct{}
}

func (f *inflight) acquire(k string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, busy := f.keys[k]; busy {
		return false
	}
	f.keys[k] = struct{}{}
	return true
}

func (f *inflight) release(k string) {
	f.mu.Lock()
	delete(f.keys, k)
	f.mu.Unlock()
}
