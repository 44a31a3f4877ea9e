package server

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"
)

// corsAllowHeaders are the request headers a page of an allowed origin may send: the key
// (x-api-key, Authorization), JSON bodies, Idempotency-Key, the upload headers
// (Content-Type, x-file-name, x-project-id, x-illustration-name), the events stream's
// Last-Event-ID, a request id of the client's own, and the conditional and range headers of
// previews and downloads.
var corsAllowHeaders = strings.Join([]string{
	"X-Api-Key", "Authorization", "Content-Type", "Idempotency-Key",
	"X-File-Name", "X-Project-Id", headerIllustrationName,
	"Last-Event-ID", RequestIDHeader,
	"Range", "If-Range", "If-None-Match", "If-Modified-Since", "If-Match", "If-Unmodified-Since",
}, ", ")

// corsExposeHeaders are the response headers such a page may read besides the safelisted
// ones: Retry-After of 429 and 503, Idempotent-Replayed, the request id, Location, the
// download headers (Content-Disposition, Content-Range, Accept-Ranges, Content-Length) and
// the previews' ETag. The API has no pagination headers: cursors travel in meta.
var corsExposeHeaders = strings.Join([]string{
	"Retry-After", "Idempotent-Replayed", RequestIDHeader, "Location",
	"Content-Disposition", "Content-Range", "Accept-Ranges", "Content-Length", "ETag",
}, ", ")

// corsMaxAge is how long a browser may keep a preflight's answer: 2 h, the most Chromium
// keeps (Firefox keeps 24 h). A browser that kept it still gets no
// Access-Control-Allow-Origin on the request itself once its origin is dropped.
const corsMaxAge = 2 * 60 * 60

// corsPath reports whether a path may be answered with CORS headers: not the operator's
// routes (/admin/), the console's own pages (/, /console/) or the metrics.
func corsPath(path string) bool {
	switch {
	case path == "/", path == "/metrics", path == "/admin", path == "/console":
		return false
	case strings.HasPrefix(path, "/admin/"), strings.HasPrefix(path, "/console/"):
		return false
	}
	return true
}

// ParseCORSOrigins checks --cors-origins: each value is "*" (alone: any origin) or an
// origin as a browser sends it, scheme://host[:port] with no path, query, fragment or user.
// It returns them as browsers write them (lower case, no default port), so that they
// compare byte for byte with the Origin header.
func ParseCORSOrigins(values []string) ([]string, error) {
	out := make([]string, 0, len(values))
	for _, v := range values {
		o, err := normalizeOrigin(v)
		if err != nil {
			return nil, err
		}
		if !slices.Contains(out, o) {
			out = append(out, o)
		}
	}
	if slices.Contains(out, "*") && len(out) > 1 {
		return nil, fmt.Errorf("* allows every origin and cannot be listed with others (%s)", strings.Join(out, ","))
	}
	return out, nil
}

// normalizeOrigin checks one --cors-origins value; see ParseCORSOrigins.
func normalizeOrigin(v string) (string, error) {
	v = strings.TrimSpace(v)
	if v == "*" {
		return v, nil
	}
	bad := func(why string) (string, error) {
		return "", fmt.Errorf("origin %q: %s; write it as a browser sends it, scheme://host[:port], e.g. http://127.0.0.1:5173", v, why)
	}
	u, err := url.Parse(v)
	switch {
	case v == "" || v == "null":
		return bad("not an origin a page can be trusted by (null is every sandboxed page's)")
	case err != nil:
		return bad(err.Error())
	case u.Scheme == "" || u.Opaque != "" || !strings.Contains(v, "://"):
		return bad("no scheme://")
	case u.User != nil:
		return bad("an origin has no user")
	case u.Host == "" || u.Hostname() == "":
		return bad("no host")
	case strings.Contains(u.Host, "*"):
		return bad("no wildcards in an origin (* alone allows every origin)")
	case u.Path != "" || u.RawQuery != "" || u.Fragment != "" || u.ForceQuery || strings.HasSuffix(v, "#"):
		return bad("an origin has no path, query or fragment (not even /)")
	}
	scheme, host, port := strings.ToLower(u.Scheme), strings.ToLower(u.Hostname()), u.Port()
	if strings.HasSuffix(u.Host, ":") {
		return bad("empty port")
	}
	if port != "" {
		n, err := strconv.Atoi(port)
		if err != nil || n < 1 || n > 65535 {
			return bad("the port must be 1..65535")
		}
		if scheme == "http" && n == 80 || scheme == "https" && n == 443 {
			port = "" // browsers leave the default port out
		} else {
			port = strconv.Itoa(n)
		}
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port != "" {
		host += ":" + port
	}
	return scheme + "://" + host, nil
}

// corsPolicy answers cross-origin requests for Config.CORSOrigins; nil when there are none.
type corsPolicy struct {
	any     bool            // "*"
	origins map[string]bool // exact origins
	routes  *routeTable     // the routes preflights may ask for
}

// newCORS builds the policy of origins over the engine's routes (those corsPath allows).
// An entry ParseCORSOrigins refuses is left out (serve refuses it at start); no entry
// left, no policy.
func newCORS(origins []string, engine *gin.Engine) *corsPolicy {
	p := &corsPolicy{origins: map[string]bool{}}
	for _, o := range origins {
		if o, err := normalizeOrigin(o); err == nil {
			p.any = p.any || o == "*"
			p.origins[o] = true
		}
	}
	if len(p.origins) == 0 {
		return nil
	}
	p.routes = newRouteTable(engine, corsPath)
	return p
}

// allowOrigin is the Access-Control-Allow-Origin answer to origin, "" for none.
func (p *corsPolicy) allowOrigin(origin string) string {
	switch {
	case origin == "":
		return ""
	case p.any:
		return "*"
	case p.origins[origin]:
		return origin
	}
	return ""
}

// preflightRouteKey holds the route template a preflight asked about, for observe's log
// line and metrics (the OPTIONS request itself matches no route).
const preflightRouteKey = "cutroom.preflightRoute"

// cors is the middleware of Config.CORSOrigins (see the package doc). Every answer on a
// path corsPath allows gets Vary: Origin; one to an allowed origin gets
// Access-Control-Allow-Origin and -Expose-Headers, errors included, so a page can read
// them. A preflight (OPTIONS with Access-Control-Request-Method) for a route and method the
// API has is answered here: 204 with the route's methods and the allowed headers for an
// allowed origin, 403 CORS_ORIGIN_NOT_ALLOWED for another. Any other preflight goes on to
// the router, which answers it 404 or 405 as without CORS.
func (s *Server) cors(c *gin.Context) {
	r := c.Request
	if s.corsPolicy == nil || !corsPath(r.URL.Path) {
		return
	}
	h := c.Writer.Header()
	h.Add("Vary", "Origin")
	origin := r.Header.Get("Origin")
	allow := s.corsPolicy.allowOrigin(origin)
	method := r.Header.Get("Access-Control-Request-Method")
	if r.Method != http.MethodOptions || method == "" || origin == "" {
		if allow != "" {
			h.Set("Access-Control-Allow-Origin", allow)
			h.Set("Access-Control-Expose-Headers", corsExposeHeaders)
		}
		return
	}
	route, methods := s.corsPolicy.routes.lookup(method, r.URL)
	if route == "" {
		return // no such route or method: the router's own answer
	}
	c.Set(preflightRouteKey, route)
	if allow == "" {
		s.fail(c, errCORSOrigin.New("origin %q may not call this API from a browser; the server's --cors-origins lists the origins that may", truncate(origin, 128)))
		return
	}
	if !s.hostAllowed(r) {
		return // checkHost refuses it
	}
	h.Set("Access-Control-Allow-Origin", allow)
	h.Set("Access-Control-Allow-Methods", strings.Join(methods, ", "))
	h.Set("Access-Control-Allow-Headers", corsAllowHeaders)
	h.Set("Access-Control-Max-Age", strconv.Itoa(corsMaxAge))
	// The operator listed the origin: a public page may reach a server on a private or
	// loopback address (Chromium's Private Network Access asks for this).
	if r.Header.Get("Access-Control-Request-Private-Network") == "true" {
		h.Set("Access-Control-Allow-Private-Network", "true")
	}
	c.AbortWithStatus(http.StatusNoContent)
}

// routeTable answers which routes of an engine serve a method on a path. It is a second gin
// engine with the same routes (each answering only its own template), so a preflight
// matches exactly as the request it announces will: same trees, parameters, wildcards and
// trailing-slash rule.
type routeTable struct {
	engine  *gin.Engine
	methods []string // the methods of its routes, sorted
}

type matchedRouteKey struct{}

// newRouteTable holds the routes of src whose template keep accepts, matched with src's
// path rules.
func newRouteTable(src *gin.Engine, keep func(path string) bool) *routeTable {
	e := gin.New()
	e.RedirectTrailingSlash, e.RedirectFixedPath, e.RemoveExtraSlash = src.RedirectTrailingSlash, src.RedirectFixedPath, src.RemoveExtraSlash
	e.UseRawPath, e.UnescapePathValues = src.UseRawPath, src.UnescapePathValues
	t := &routeTable{engine: e}
	found := func(c *gin.Context) {
		if p, ok := c.Request.Context().Value(matchedRouteKey{}).(*string); ok {
			*p = c.FullPath()
		}
	}
	for _, r := range src.Routes() {
		if keep(r.Path) {
			e.Handle(r.Method, r.Path, found)
			if !slices.Contains(t.methods, r.Method) {
				t.methods = append(t.methods, r.Method)
			}
		}
	}
	slices.Sort(t.methods)
	return t
}

// match returns the template of the route serving method on u's path, "" for none.
func (t *routeTable) match(method string, u *url.URL) string {
	var route string
	req := (&http.Request{Method: method, URL: u, Header: http.Header{}}).
		WithContext(context.WithValue(context.Background(), matchedRouteKey{}, &route))
	t.engine.ServeHTTP(discardWriter{}, req)
	return route
}

// lookup returns the template of the route serving method on u's path ("" for none) and,
// when there is one, every method served on that path.
func (t *routeTable) lookup(method string, u *url.URL) (string, []string) {
	route := t.match(method, u)
	if route == "" {
		return "", nil
	}
	var methods []string
	for _, m := range t.methods {
		if m == method || t.match(m, u) != "" {
			methods = append(methods, m)
		}
	}
	return route, methods
}

// discardWriter is the answer of routeTable's probes, which nobody reads.
type discardWriter struct{}

func (discardWriter) Header() http.Header         { return http.Header{} }
func (discardWriter) Write(p []byte) (int, error) { return len(p), nil }
func (discardWriter) WriteHeader(int)             {}
