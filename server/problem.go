package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"

	"github.com/cutroom/cutroom/apierr"
	"github.com/gin-gonic/gin"
)

// Problem is the body of every error response (problem details with a stable errorCode).
// Extra members carry structured detail, such as the offending field or validation errors.
type Problem struct {
	Type      string `json:"type"`
	Title     string `json:"title"`
	Status    int    `json:"status"`
	Detail    string `json:"detail"`
	ErrorCode string `json:"errorCode"`
	Field     string `json:"field,omitempty"`
	Errors    any    `json:"errors,omitempty"`
}

// apiError is an error raised by the server itself with its status already known.
type apiError struct {
	status int
	code   string
	detail string
	field  string
	errors any
}

func (e *apiError) Error() string { return e.detail }

func newError(status int, code, format string, args ...any) *apiError {
	return &apiError{status: status, code: code, detail: fmt.Sprintf(format, args...)}
}

func fieldError(status int, code, field, format string, args ...any) *apiError {
	return &apiError{status: status, code: code, field: field, detail: fmt.Sprintf(format, args...)}
}

// coded is implemented by the domain packages' errors.
type coded interface {
	error
	ErrorCode() string
}

// fielded is implemented by domain errors that name the request field at fault.
type fielded interface {
	ErrorField() string
}

// detailed is implemented by domain errors that carry a list of structured errors.
type detailed interface {
	ErrorDetails() any
}

// codeStatus maps the domain packages' error codes to HTTP statuses. It is the one place
// where a domain code becomes a status; an unlisted code is a domain rejection (422).
var codeStatus = map[string]int{
	"PROJECT_NOT_FOUND":      http.StatusNotFound,
	"ASSET_NOT_FOUND":        http.StatusNotFound,
	"ASSET_NOT_BOUND":        http.StatusNotFound,
	"BODY_REQUIRED":          http.StatusBadRequest,
	"BODY_UNREADABLE":        http.StatusBadRequest,
	"TASK_NOT_FOUND":         http.StatusNotFound,
	"WORKSPACE_NOT_FOUND":    http.StatusNotFound,
	"API_KEY_NOT_FOUND":      http.StatusNotFound,
	"INVALID_PAGE_CURSOR":    http.StatusBadRequest,
	"ASSET_REFERENCED":       http.StatusConflict,
	"ASSET_BUSY":             http.StatusServiceUnavailable,
	"ASSET_TOO_COMPLEX":      http.StatusUnprocessableEntity,
	"TASK_NOT_CANCELABLE":    http.StatusConflict,
	"IDEMPOTENCY_KEY_EXISTS": http.StatusConflict,
	"WORKSPACE_EXISTS":       http.StatusConflict,
	"OUTPUT_EXPIRED":         http.StatusGone,
	"PAYLOAD_TOO_LARGE":      http.StatusRequestEntityTooLarge,
	"LINK_INVALID":           http.StatusForbidden,
	"LINK_EXPIRED":           http.StatusForbidden,
	"FIELD_REQUIRED":         http.StatusBadRequest,
	"INVALID_FIELD_TYPE":     http.StatusBadRequest,
	"SERVER_BUSY":            http.StatusServiceUnavailable,
	"BODY_TIMEOUT":           http.StatusRequestTimeout,

	"OPEN_API_EXPORT_CONCURRENCY_LIMIT_EXCEEDED": http.StatusUnprocessableEntity,
	"OPEN_API_PROJECT_SYNC_RATE_LIMITED":         http.StatusTooManyRequests,
	"OPEN_API_RUNTIME_ACCESS_FORBIDDEN":          http.StatusForbidden,
}

// problemTypes names each status in `type`, in the style of the interface's examples.
var problemTypes = map[int]string{
	400: "BAD_REQUEST", 401: "UNAUTHORIZED", 403: "FORBIDDEN", 404: "NOT_FOUND",
	405: "METHOD_NOT_ALLOWED", 408: "REQUEST_TIMEOUT", 409: "CONFLICT", 410: "GONE", 412: "PRECONDITION_FAILED", 413: "PAYLOAD_TOO_LARGE",
	416: "RANGE_NOT_SATISFIABLE", 422: "UNPROCESSABLE_ENTITY", 429: "TOO_MANY_REQUESTS",
	500: "INTERNAL_ERROR", 503: "SERVICE_UNAVAILABLE",
}

// problemFor turns any error into the problem the client sees. Errors without a code are
// internal: they are logged with context and answered as 500 without internals.
func problemFor(err error, log *slog.Logger, c *gin.Context) Problem {
	var ae *apiError
	var mbe *http.MaxBytesError
	var ce coded
	p := Problem{}
	switch {
	case errors.As(err, &ae):
		p.Status, p.ErrorCode, p.Detail, p.Field, p.Errors = ae.status, ae.code, ae.detail, ae.field, ae.errors
	case errors.As(err, &mbe):
		p.Status, p.ErrorCode = http.StatusRequestEntityTooLarge, "PAYLOAD_TOO_LARGE"
		p.Detail = fmt.Sprintf("the request body is larger than the %d bytes this route accepts", mbe.Limit)
	case apierr.As(err) != nil:
		// The one error model (package apierr); until every package has moved to it, its
		// codes take their status from codeStatus like the others.
		e := apierr.As(err)
		p.ErrorCode, p.Detail, p.Field, p.Errors = e.Code.String(), e.Detail, e.Field, e.Details
		st, ok := codeStatus[p.ErrorCode]
		if !ok {
			st = http.StatusUnprocessableEntity
		}
		p.Status = st
	case errors.As(err, &ce):
		p.ErrorCode, p.Detail = ce.ErrorCode(), ce.Error()
		st, ok := codeStatus[p.ErrorCode]
		if !ok {
			st = http.StatusUnprocessableEntity
		}
		p.Status = st
		var fe fielded
		if errors.As(err, &fe) {
			p.Field = fe.ErrorField()
		}
		var de detailed
		if errors.As(err, &de) {
			p.Errors = de.ErrorDetails()
		}
	default:
		log.Error("internal error", "err", err, "method", c.Request.Method, "path", c.FullPath())
		p.Status, p.ErrorCode, p.Detail = http.StatusInternalServerError, "INTERNAL_ERROR", "an internal error occurred; it has been logged"
	}
	p.Type = problemTypes[p.Status]
	if p.Type == "" {
		p.Type = strings.ToUpper(strings.ReplaceAll(http.StatusText(p.Status), " ", "_"))
	}
	p.Title = http.StatusText(p.Status)
	return p
}

// fail writes err as a problem response and aborts the handler chain.
func (s *Server) fail(c *gin.Context, err error) {
	p := problemFor(err, s.log, c)
	if p.Status == http.StatusTooManyRequests {
		var ra interface{ RetryAfterSeconds() int }
		if errors.As(err, &ra) {
			c.Header("Retry-After", fmt.Sprint(ra.RetryAfterSeconds()))
		}
	}
	body, _ := json.Marshal(p)
	c.Abort()
	// Set, not defaulted: a file route may have set its file's Content-Type already.
	c.Writer.Header().Set("Content-Type", "application/problem+json")
	c.Data(p.Status, "application/problem+json", body)
}

// envelope is the body of every success response.
type envelope struct {
	Data any            `json:"data"`
	Meta map[string]any `json:"meta"`
}

// render marshals a success envelope.
func render(data any, meta map[string]any) ([]byte, error) {
	if meta == nil {
		meta = map[string]any{}
	}
	return json.Marshal(envelope{Data: data, Meta: meta})
}

// ok writes a success envelope.
func (s *Server) ok(c *gin.Context, status int, data any, meta map[string]any) {
	body, err := render(data, meta)
	if err != nil {
		s.fail(c, err)
		return
	}
	c.Data(status, "application/json; charset=utf-8", body)
}
