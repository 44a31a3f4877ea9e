package apierr

import (
	"errors"
	"fmt"
)

// Kind classifies an error by what the client did or must do; the server maps each kind to
// one HTTP status. The zero Kind is Internal.
type Kind int

// The kinds, with the status the server answers for each.
const (
	Internal            Kind = iota // 500: a fault of the server; never the client's
	Invalid                         // 400: the request is malformed (syntax, type, missing member)
	Unauthenticated                 // 401: no valid credentials
	Forbidden                       // 403: credentials valid, access refused
	NotFound                        // 404: no such resource for the caller
	MethodNotAllowed                // 405: the route exists with other methods
	Timeout                         // 408: the request arrived too slowly
	Conflict                        // 409: the resource's state forbids the operation
	Gone                            // 410: the resource existed and has expired
	PreconditionFailed              // 412: a conditional header does not hold
	TooLarge                        // 413: the body is over its cap
	RangeNotSatisfiable             // 416: a Range header cannot be served
	Unprocessable                   // 422: well-formed, but a rule refuses it
	RateLimited                     // 429: too many requests; retry after a while
	Unavailable                     // 503: the server cannot take it now; retry later
	InsufficientStorage             // 507: the server has no room to store it; retry after space is freed
)

var kindNames = [...]string{"internal", "invalid", "unauthenticated", "forbidden", "not found",
	"method not allowed", "timeout", "conflict", "gone", "precondition failed", "too large",
	"range not satisfiable", "unprocessable", "rate limited", "unavailable", "insufficient storage"}

func (k Kind) String() string {
	if k < 0 || int(k) >= len(kindNames) {
		return fmt.Sprintf("Kind(%d)", int(k))
	}
	return kindNames[k]
}

// Code is a stable API error code with its kind. Define it once, next to the rule that
// raises it; build errors from it with [Code.New] and [Code.Field].
type Code struct {
	kind Kind
	name string
}

// Kind returns the code's kind.
func (c Code) Kind() Kind { return c.kind }

// String returns the code as clients see it in errorCode (e.g. PROJECT_NOT_FOUND).
func (c Code) String() string { return c.name }

// Define returns the API code name of the given kind. Call it once per code, next to the
// rule that raises it, with the name as a string literal: the repository's code-table test
// finds every Define in the source, refuses a name defined with two kinds, and checks that
// each name appears in a table of README.md or docs/*.md. Names are upper snake case.
func Define(kind Kind, name string) Code {
	if name == "" || kind == Internal && name != "INTERNAL_ERROR" || kind < 0 || int(kind) >= len(kindNames) {
		panic("apierr: a code needs a name and a kind other than Internal: " + name)
	}
	for _, r := range name {
		if !(r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_') {
			panic("apierr: code names are upper snake case: " + name)
		}
	}
	return Code{kind: kind, name: name}
}

// Error is an error a client sees: its code (with the kind), a human-readable detail, and
// optionally the request field at fault, structured details (a problem's errors member), a
// Retry-After in seconds, and the underlying cause (logged, never sent).
type Error struct {
	Code       Code
	Detail     string
	Field      string
	Details    any
	RetryAfter int
	Err        error
}

// New returns an error of code c whose detail is format applied to args.
func (c Code) New(format string, args ...any) *Error {
	return &Error{Code: c, Detail: fmt.Sprintf(format, args...)}
}

// Field returns an error of code c about the request member field.
func (c Code) Field(field, format string, args ...any) *Error {
	return &Error{Code: c, Field: field, Detail: fmt.Sprintf(format, args...)}
}

// Wrap returns an error of code c with detail and cause err (which the client never sees).
func (c Code) Wrap(err error, format string, args ...any) *Error {
	return &Error{Code: c, Detail: fmt.Sprintf(format, args...), Err: err}
}

// Is reports whether err is, or wraps, an *Error of code c.
func (c Code) Is(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Code == c
}

// Error returns the detail.
func (e *Error) Error() string { return e.Detail }

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Kind returns the error's kind.
func (e *Error) Kind() Kind { return e.Code.kind }

// WithDetails sets the structured details and returns e.
func (e *Error) WithDetails(details any) *Error { e.Details = details; return e }

// WithRetryAfter sets Retry-After (seconds) and returns e.
func (e *Error) WithRetryAfter(seconds int) *Error { e.RetryAfter = seconds; return e }

// As returns the *Error that err is or wraps, or nil: an error without one is internal.
func As(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return nil
}

// KindOf returns the kind of err: Internal unless it is or wraps an *Error.
func KindOf(err error) Kind {
	if e := As(err); e != nil {
		return e.Code.kind
	}
	return Internal
}
