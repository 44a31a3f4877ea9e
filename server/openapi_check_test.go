package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/cutroom/cutroom/server"
	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"
)

// editorStateID is the $id of the editor-state schema the description refers to. The
// checks below resolve it to "any object": the editor package's own tests hold states to
// that schema, and checking them again here would only slow every test down.
const editorStateID = "https://api.indream.ai/schemas/editor-state.v1.schema.json"

// apiDescription is the served description, loaded and validated once per test binary.
var apiDescription = sync.OnceValues(func() (*describedAPI, error) {
	loader := openapi3.NewLoader()
	loader.IsExternalRefsAllowed = true
	loader.ReadFromURIFunc = func(_ *openapi3.Loader, u *url.URL) ([]byte, error) {
		if u.String() == editorStateID {
			return []byte(`{"type":"object"}`), nil
		}
		return nil, fmt.Errorf("the description refers to %s, which is not ours", u)
	}
	doc, err := loader.LoadFromData(server.OpenAPI())
	if err != nil {
		return nil, err
	}
	if err := doc.Validate(context.Background()); err != nil {
		return nil, err
	}
	router, err := legacy.NewRouter(doc)
	if err != nil {
		return nil, err
	}
	openapi3filter.RegisterBodyDecoder("application/problem+json", openapi3filter.JSONBodyDecoder)
	return &describedAPI{doc: doc, router: router}, nil
})

type describedAPI struct {
	doc    *openapi3.T
	router routers.Router
}

// interfaceDescription is the interface's own OpenAPI file (a copy of the shared spec's
// openapi.yaml), loaded once per test binary. Its server URL is dropped so that its routes
// match the test server's paths; its editor-state schema ($ref to a file beside it) reads
// as "any object", as in apiDescription.
var interfaceDescription = sync.OnceValues(func() (*describedAPI, error) {
	loader := openapi3.NewLoader()
	loader.IsExternalRefsAllowed = true
	loader.ReadFromURIFunc = func(_ *openapi3.Loader, u *url.URL) ([]byte, error) {
		if strings.HasSuffix(u.Path, "/editor-state.v1.schema.json") {
			return []byte(`{"type":"object"}`), nil
		}
		if strings.HasSuffix(u.Path, "/interface-openapi.yaml") {
			return os.ReadFile(interfaceOpenAPIFile)
		}
		return nil, fmt.Errorf("the interface's description refers to %s", u)
	}
	doc, err := loader.LoadFromFile(interfaceOpenAPIFile)
	if err != nil {
		return nil, err
	}
	if err := doc.Validate(context.Background()); err != nil {
		return nil, err
	}
	doc.Servers = nil
	router, err := legacy.NewRouter(doc)
	if err != nil {
		return nil, err
	}
	return &describedAPI{doc: doc, router: router}, nil
})

// interfaceOpenAPIFile is a copy of the interface spec's openapi.yaml.
const interfaceOpenAPIFile = "testdata/interface-openapi.yaml"

// checkInterface checks a success answer with a JSON body of a route the interface
// describes against the interface's own description, as a strict client generated from it
// would read it: the status must be one it declares and the body must fit its schema.
// Routes the interface does not describe (the server's additions) and refusals (the
// interface leaves most of their codes open) are not checked here.
func (d *describedAPI) checkInterface(r *http.Request, rec *recordingWriter) error {
	if rec.status >= 300 || !isJSON(rec.Header().Get("Content-Type")) {
		return nil
	}
	route, params, err := d.router.FindRoute(r)
	if err != nil {
		return nil
	}
	// The legacy router takes /v1/assets (the server's addition) for /v1/assets/{assetId}
	// with an empty id: a path parameter is never empty, so that is no route of the
	// interface's.
	for _, v := range params {
		if v == "" {
			return nil
		}
	}
	opts := &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, IncludeResponseStatus: true,
		ExcludeRequestBody: true}
	req := r.Clone(context.Background())
	req.Body = http.NoBody
	in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route, Options: opts}
	return openapi3filter.ValidateResponse(context.Background(), &openapi3filter.ResponseValidationInput{
		RequestValidationInput: in, Status: rec.status, Header: rec.Header(),
		Body: io.NopCloser(bytes.NewReader(rec.body.Bytes())), Options: opts,
	})
}

// route finds the described operation of a request. /files/*fileKey and /console/*path
// take values with slashes, which an OpenAPI path parameter cannot, so they are matched here.
// The interface's description is routed by its router alone (checkInterface).
func (d *describedAPI) route(r *http.Request) (*routers.Route, map[string]string, error) {
	for _, w := range []struct{ prefix, path, param string }{{"/files/", "/files/{fileKey}", "fileKey"}, {"/console/", "/console/{path}", "path"}} {
		if v, ok := strings.CutPrefix(r.URL.Path, w.prefix); ok {
			item := d.doc.Paths.Value(w.path)
			if op := item.GetOperation(r.Method); op != nil {
				return &routers.Route{Spec: d.doc, Path: w.path, PathItem: item, Method: r.Method, Operation: op},
					map[string]string{w.param: v}, nil
			}
		}
	}
	// The router takes /v1/exports/ for /v1/exports; the server does not (no path described
	// ends with a slash).
	if p := r.URL.Path; len(p) > 1 && strings.HasSuffix(p, "/") {
		return nil, nil, fmt.Errorf("no described path ends with a slash: %s", p)
	}
	return d.router.FindRoute(r)
}

// checkAPI wraps h so that every request it serves and every answer it gives is checked
// against the served OpenAPI description; a mismatch fails t: an undocumented route,
// status or errorCode, or a body that breaks its schema. Every success answer of a route
// the interface describes is checked against the interface's OpenAPI file too
// (checkInterface). Request bodies are teed as the
// handler reads them and responses pass through as written, so slow bodies and streams
// behave as without the wrapper.
func checkAPI(t testing.TB, h http.Handler) http.Handler {
	api, err := apiDescription()
	if err != nil {
		t.Fatalf("openapi.json: %v", err)
	}
	spec, err := interfaceDescription()
	if err != nil {
		t.Fatalf("%s: %v", interfaceOpenAPIFile, err)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var reqBody bytes.Buffer
		if r.Body != nil && r.Body != http.NoBody {
			r.Body = teeBody{Reader: io.TeeReader(r.Body, &reqBody), Closer: r.Body}
		}
		rec := &recordingWriter{ResponseWriter: w, status: http.StatusOK}
		h.ServeHTTP(rec, r)
		if err := api.check(r, reqBody.Bytes(), rec); err != nil {
			msg, _, _ := strings.Cut(err.Error(), "\n")
			t.Errorf("%s %s answered %d, not as described in openapi.json: %s\n%s", r.Method, r.URL, rec.status, msg, clip(rec.body.Bytes()))
		}
		if err := spec.checkInterface(r, rec); err != nil {
			msg, _, _ := strings.Cut(err.Error(), "\n")
			t.Errorf("%s %s answered %d, not as the interface's openapi.yaml describes: %s\n%s", r.Method, r.URL, rec.status, msg, clip(rec.body.Bytes()))
		}
	})
}

func (d *describedAPI) check(r *http.Request, reqBody []byte, rec *recordingWriter) error {
	route, params, err := d.route(r)
	if err != nil {
		// Only the router's own refusals answer paths and methods that are not described,
		// and CORS preflights, which are the browser's, not operations of the API: 204 with
		// no body, or refused (server/cors.go).
		code := problemCode(rec)
		if code == "ROUTE_NOT_FOUND" || code == "METHOD_NOT_ALLOWED" || code == "HOST_NOT_ALLOWED" {
			return nil
		}
		if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" &&
			(code == "CORS_ORIGIN_NOT_ALLOWED" || rec.status == http.StatusNoContent && rec.body.Len() == 0) {
			return nil
		}
		return fmt.Errorf("undocumented route: %v", err)
	}
	opts := &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, IncludeResponseStatus: true}
	req := r.Clone(context.Background())
	req.Body = io.NopCloser(bytes.NewReader(reqBody))
	if !isJSON(r.Header.Get("Content-Type")) {
		opts.ExcludeRequestBody = true
	}
	in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route, Options: opts}
	// Refused requests are refused on purpose; an accepted one must fit the description.
	if rec.status < 300 {
		if err := openapi3filter.ValidateRequest(context.Background(), in); err != nil {
			return fmt.Errorf("accepted request: %w", err)
		}
	}
	ropts := *opts
	ropts.ExcludeResponseBody = !isJSON(rec.Header().Get("Content-Type"))
	return openapi3filter.ValidateResponse(context.Background(), &openapi3filter.ResponseValidationInput{
		RequestValidationInput: in, Status: rec.status, Header: rec.Header(),
		Body: io.NopCloser(bytes.NewReader(rec.body.Bytes())), Options: &ropts,
	})
}

func isJSON(ct string) bool {
	mt, _, _ := mime.ParseMediaType(ct)
	return mt == "application/json" || strings.HasSuffix(mt, "+json")
}

func problemCode(rec *recordingWriter) string {
	var p struct{ ErrorCode string }
	_ = json.Unmarshal(rec.body.Bytes(), &p)
	return p.ErrorCode
}

func clip(b []byte) []byte {
	if len(b) > 600 {
		return append(b[:600:600], "..."...)
	}
	return b
}

type teeBody struct {
	io.Reader
	io.Closer
}

// recordingWriter passes a response through and keeps its status and JSON body.
type recordingWriter struct {
	http.ResponseWriter
	status      int
	wroteHeader bool
	body        bytes.Buffer
}

func (w *recordingWriter) WriteHeader(code int) {
	if !w.wroteHeader && code >= 200 {
		w.status, w.wroteHeader = code, true
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *recordingWriter) Write(p []byte) (int, error) {
	w.wroteHeader = true
	if isJSON(w.Header().Get("Content-Type")) {
		w.body.Write(p)
	}
	return w.ResponseWriter.Write(p)
}

func (w *recordingWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection (deadlines, hijacking).
func (w *recordingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
