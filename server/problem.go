package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"

	"github.com/cutroom/cutroom/apierr"
	"github.com/cutroom/cutroom/storage"
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

// internalDetail is the detail of every 500.
const internalDetail = "an internal error occurred; it has been logged"

// statusOf is the one place where an error's kind becomes an HTTP status.
func statusOf(k apierr.Kind) int {
	switch k {
	case apierr.Invalid:
		return http.StatusBadRequest
	case apierr.Unauthenticated:
		return http.StatusUnauthorized
	case apierr.Forbidden:
		return http.StatusForbidden
	case apierr.NotFound:
		return http.StatusNotFound
	case apierr.MethodNotAllowed:
		return http.StatusMethodNotAllowed
	case apierr.Timeout:
		return http.StatusRequestTimeout
	case apierr.Conflict:
		return http.StatusConflict
	case apierr.Gone:
		return http.StatusGone
	case apierr.PreconditionFailed:
		return http.StatusPreconditionFailed
	case apierr.TooLarge:
		return http.StatusRequestEntityTooLarge
	case apierr.RangeNotSatisfiable:
		return http.StatusRequestedRangeNotSatisfiable
	case apierr.Unprocessable:
		return http.StatusUnprocessableEntity
	case apierr.RateLimited:
		return http.StatusTooManyRequests
	case apierr.Unavailable:
		return http.StatusServiceUnavailable
	case apierr.InsufficientStorage:
		return http.StatusInsufficientStorage
	default: // apierr.Internal, and any kind this switch does not know
		return http.StatusInternalServerError
	}
}

// problemTypes names each status in `type`, in the style of the interface's examples.
var problemTypes = map[int]string{
	400: "BAD_REQUEST", 401: "UNAUTHORIZED", 403: "FORBIDDEN", 404: "NOT_FOUND",
	405: "METHOD_NOT_ALLOWED", 408: "REQUEST_TIMEOUT", 409: "CONFLICT", 410: "GONE", 412: "PRECONDITION_FAILED", 413: "PAYLOAD_TOO_LARGE",
	416: "RANGE_NOT_SATISFIABLE", 422: "UNPROCESSABLE_ENTITY", 429: "TOO_MANY_REQUESTS",
	500: "INTERNAL_ERROR", 503: "SERVICE_UNAVAILABLE", 507: "INSUFFICIENT_STORAGE",
}

// problemFor turns any error into the problem the client sees, and the Retry-After (seconds,
// 0 for none) to send with it. An error without a kind is internal: it is logged with
// context and answered as 500 without internals.
func problemFor(err error, log *slog.Logger, c *gin.Context) (Problem, int) {
	var p Problem
	retryAfter := 0
	e := apierr.As(err)
	var mbe *http.MaxBytesError
	switch {
	case e != nil && e.Kind() != apierr.Internal:
		p.Status = statusOf(e.Kind())
		p.ErrorCode, p.Detail, p.Field, p.Errors = e.Code.String(), e.Detail, e.Field, e.Details
	case e == nil && errors.As(err, &mbe):
		p.Status, p.ErrorCode = http.StatusRequestEntityTooLarge, errPayloadTooLarge.String()
		p.Detail = fmt.Sprintf("the request body is larger than the %d bytes this route accepts", mbe.Limit)
	case e == nil && errors.Is(err, storage.ErrContention):
		// the database is busy, not broken: the client may send the same request again
		log.Warn("database contention", "err", err, "method", c.Request.Method, "route", routeTemplate(c.FullPath()),
			"requestId", requestIDOf(c))
		p.Status, p.ErrorCode = http.StatusServiceUnavailable, errServerBusy.String()
		p.Detail = "the database is too busy for this write now; nothing was written: send the request again"
		retryAfter = 1
	default:
		log.Error("internal error", "err", err, "method", c.Request.Method, "route", routeTemplate(c.FullPath()),
			"requestId", requestIDOf(c))
		p.Status, p.ErrorCode, p.Detail = http.StatusInternalServerError, errInternal.String(), internalDetail
	}
	p.Type = problemTypes[p.Status]
	if p.Type == "" {
		p.Type = strings.ToUpper(strings.ReplaceAll(http.StatusText(p.Status), " ", "_"))
	}
	p.Title = http.StatusText(p.Status)
	if e == nil || p.Status == http.StatusInternalServerError {
		return p, retryAfter
	}
	return p, e.RetryAfter
}

// statusClientClosedRequest is the status logged (and counted) for a request whose client
// went away before its answer, as nginx logs it: nobody reads the answer, and it is no
// fault of the server.
const statusClientClosedRequest = 499

// fail writes err as a problem response and aborts the handler chain. An internal error
// of a request whose client has gone (its context ended: the drawing or reading it waited
// for was cancelled) is no fault of the server: it is logged at info level as "client
// closed request" and answered 499 without a body.
func (s *Server) fail(c *gin.Context, err error) {
	if apierr.As(err) == nil && c.Request.Context().Err() != nil {
		s.log.Info("client closed request", "err", err, "method", c.Request.Method, "route", routeTemplate(c.FullPath()),
			"requestId", requestIDOf(c))
		c.AbortWithStatus(statusClientClosedRequest)
		return
	}
	p, retryAfter := problemFor(err, s.log, c)
	if retryAfter > 0 {
		c.Header("Retry-After", strconv.Itoa(retryAfter))
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
