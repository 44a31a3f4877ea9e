package server

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/gin-gonic/gin"
)

// Defaults of the request-body limits (Config); serve's flags use them.
const (
	// DefaultMaxBodyBytes caps one JSON request body.
	DefaultMaxBodyBytes = 32 << 20
	// DefaultBodyBudgetBytes is the server-wide budget of JSON body bytes being read and
	// decoded at once: 4 JSON bodies of the default cap.
	DefaultBodyBudgetBytes = 4 * DefaultMaxBodyBytes
	// DefaultMinBodyRate is the slowest average rate, in bytes per second, at which a request
	// body may arrive once DefaultBodyGrace has passed (128 kbit/s: 1 GiB in under 18 h).
	DefaultMinBodyRate = 16 << 10
	// DefaultBodyGrace is the time every body gets before the rate counts, and the longest
	// a body may stay silent.
	DefaultBodyGrace = 20 * time.Second
	// DefaultReadHeaderTimeout bounds the time to read a request's headers.
	DefaultReadHeaderTimeout = 10 * time.Second
)

// Defaults of the sync route's per-project token bucket (Config.SyncRate, Config.SyncBurst).
const (
	DefaultSyncRate  = 2
	DefaultSyncBurst = 10
)

// bodyBudget counts the bytes of JSON bodies reserved by requests in flight.
type bodyBudget struct {
	mu    sync.Mutex
	used  int64
	limit int64
}

func (b *bodyBudget) acquire(n int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.used+n > b.limit {
		return false
	}
	b.used += n
	return true
}

func (b *bodyBudget) release(n int64) {
	b.mu.Lock()
	b.used -= n
	b.mu.Unlock()
}

// limitBody caps the request body of JSON routes and reserves it in the server-wide budget
// for as long as the handler runs (reading, decoding and using the body): by Content-Length
// when the client sent one, else by the cap. A body over the cap is refused before it is
// read; a reservation over the budget is 503 SERVER_BUSY with Retry-After.
func (s *Server) limitBody(c *gin.Context) {
	limit := s.cfg.MaxBodyBytes
	n := limit
	if cl := c.Request.ContentLength; cl > limit {
		s.fail(c, &http.MaxBytesError{Limit: limit})
		return
	} else if cl >= 0 {
		n = cl
	}
	if !s.budget.acquire(n) {
		s.fail(c, errServerBusy.New("the server is reading and decoding %d bytes of request bodies already, its budget (--body-budget-bytes); retry in a moment",
			s.cfg.BodyBudgetBytes).WithRetryAfter(1))
		return
	}
	defer s.budget.release(n)
	c.Request.Body = http.MaxBytesReader(c.Writer, c.Request.Body, limit)
	c.Next()
}

// slowBodyKey is the gin context key of the request's *rateBody.
const slowBodyKey = "cutroom.rateBody"

// bodyDeadline gives every request body a read deadline that moves with the bytes received:
// byte n must arrive by start + BodyGrace + n/MinBodyRate, and no read may wait longer than
// BodyGrace. A slow-drip client is cut after about BodyGrace; a large upload at any sane
// rate goes through whatever its size.
func (s *Server) bodyDeadline(c *gin.Context) {
	if c.Request.Body == nil || c.Request.Body == http.NoBody || c.Request.ContentLength == 0 {
		return
	}
	rb := &rateBody{rc: c.Request.Body, ctl: http.NewResponseController(c.Writer), start: time.Now(),
		rate: s.cfg.MinBodyRate, grace: s.cfg.BodyGrace}
	// Also bounds what the server drains of a body the handler did not read.
	_ = rb.ctl.SetReadDeadline(rb.start.Add(rb.grace))
	c.Request.Body = rb
	c.Set(slowBodyKey, rb)
}

// rateBody is a request body read under a deadline that moves with the bytes received.
type rateBody struct {
	rc       io.ReadCloser
	ctl      *http.ResponseController
	start    time.Time
	rate     int64
	grace    time.Duration
	n        int64
	done     bool
	timedOut bool
}

// errBodyTimeout is returned by a body that arrives slower than the server accepts.
type errBodyTimeout struct {
	rate  int64
	grace time.Duration
}

func (e *errBodyTimeout) Error() string {
	return fmt.Sprintf("the request body arrived slower than %d bytes per second (after the first %s) or stalled for %s", e.rate, e.grace, e.grace)
}

func (b *rateBody) Read(p []byte) (int, error) {
	if b.done {
		return b.rc.Read(p)
	}
	secs := b.n / b.rate
	if secs > 1<<30 {
		secs = 1 << 30
	}
	due := b.start.Add(b.grace + time.Duration(secs)*time.Second + time.Duration(b.n%b.rate)*time.Second/time.Duration(b.rate))
	if idle := time.Now().Add(b.grace); idle.Before(due) {
		due = idle
	}
	_ = b.ctl.SetReadDeadline(due)
	k, err := b.rc.Read(p)
	b.n += int64(k)
	switch {
	case err == io.EOF:
		// Cleared once the body is read, so the server's own background read of the
		// connection cannot time out (and cancel the request) while the handler works.
		_ = b.ctl.SetReadDeadline(time.Time{})
		b.done = true
	case err != nil && errors.Is(err, os.ErrDeadlineExceeded):
		b.timedOut = true
		return k, &errBodyTimeout{rate: b.rate, grace: b.grace}
	}
	return k, err
}

func (b *rateBody) Close() error { return b.rc.Close() }

// bodyTimedOut reports whether the request's body was cut for arriving too slowly.
func bodyTimedOut(c *gin.Context) bool {
	v, ok := c.Get(slowBodyKey)
	rb, _ := v.(*rateBody)
	return ok && rb != nil && rb.timedOut
}

// bodyTimeoutProblem is the 408 of a body cut for arriving too slowly.
func (s *Server) bodyTimeoutProblem() error {
	return errBodyTooSlow.New("%s; the connection is closed",
		(&errBodyTimeout{rate: s.cfg.MinBodyRate, grace: s.cfg.BodyGrace}).Error())
}
