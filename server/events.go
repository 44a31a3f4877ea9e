package server

import (
	"encoding/json"
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/cutroom/cutroom/export"
	"github.com/cutroom/cutroom/storage"
	"github.com/gin-gonic/gin"
)

// Defaults of the event streams (Config.EventHeartbeat, Config.MaxEventStreams).
const (
	DefaultEventHeartbeat  = 15 * time.Second
	DefaultMaxEventStreams = 8
)

// TaskEvents is what GET /v1/exports/events reads; *export.Service implements it. When
// Deps.Exports does not, the route is not served.
type TaskEvents interface {
	Events() *export.EventLog
	Recent(workspaceID string) ([]export.TaskView, error)
}

// eventStreams counts the open streams per key and ends them all at shutdown.
type eventStreams struct {
	mu      sync.Mutex
	open    map[string]int
	closing chan struct{}
	once    sync.Once
}

func newEventStreams() *eventStreams {
	return &eventStreams{open: map[string]int{}, closing: make(chan struct{})}
}

func (e *eventStreams) acquire(keyID string, limit int) (func(), error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.open[keyID] >= limit {
		return nil, errTooManyStreams.New("this API key has %d event streams open, the most allowed; close one or retry later", limit).WithRetryAfter(5)
	}
	e.open[keyID]++
	return func() {
		e.mu.Lock()
		if e.open[keyID]--; e.open[keyID] <= 0 {
			delete(e.open, keyID)
		}
		e.mu.Unlock()
	}, nil
}

// CloseStreams ends every open event stream and refuses none later (they end at once).
// HTTPServer registers it with the http.Server's shutdown, which would otherwise wait for
// streams that never go idle.
func (s *Server) CloseStreams() { s.streams.once.Do(func() { close(s.streams.closing) }) }

// streamWriteTimeout bounds each write of a stream: a client that stops reading is cut off.
const streamWriteTimeout = time.Minute

// keyCheckEvery is the least time between two checks that a stream's key still works,
// besides the one at each heartbeat.
const keyCheckEvery = time.Second

// exportEvents serves GET /v1/exports/events: a text/event-stream of task.updated events,
// each with the task as GET /v1/exports/{taskId} shows it and an id that Last-Event-ID
// resumes after (see the package doc).
func (s *Server) exportEvents(c *gin.Context) {
	src := s.deps.Exports.(TaskEvents)
	p := principal(c)
	release, err := s.streams.acquire(p.Key.ID, s.cfg.MaxEventStreams)
	if err != nil {
		s.fail(c, err)
		return
	}
	defer release()
	elog, ws, key := src.Events(), p.Workspace.ID, apiKeyFrom(c.Request)
	after, resync := elog.Last(), false
	if last := c.GetHeader("Last-Event-ID"); last != "" {
		after, resync = 0, true
		if seq, ok := elog.ParseID(last); ok {
			after, resync = seq, false
		}
	}
	h := c.Writer.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	c.Status(http.StatusOK)
	st := &sseWriter{w: c.Writer, rc: http.NewResponseController(c.Writer)}
	st.raw("retry: 3000\n\n")
	heartbeat := time.NewTicker(s.cfg.EventHeartbeat)
	defer heartbeat.Stop()
	checked := time.Now()
	for st.err == nil {
		if resync {
			last := elog.Last()
			views, err := src.Recent(ws)
			if err != nil {
				s.log.Error("event stream: read the current tasks", "err", err)
				return
			}
			for _, v := range views {
				st.event(elog.ID(last), v)
			}
			after, resync = last, false
		}
		evs, last, lapped, wake := elog.Since(ws, after)
		if lapped {
			resync = true
			continue
		}
		for _, e := range evs {
			st.event(elog.ID(e.Seq), e.Task)
		}
		after = last
		if st.flush() != nil {
			return
		}
		select {
		case <-wake:
			if time.Since(checked) < keyCheckEvery {
				continue
			}
		case <-heartbeat.C:
			st.raw(": heartbeat\n\n")
		case <-c.Request.Context().Done():
			return
		case <-s.streams.closing:
			return
		}
		checked = time.Now()
		if !s.keyWorks(key) {
			return
		}
	}
}

// keyWorks reports whether an API key still authenticates (a revoked key ends its streams).
func (s *Server) keyWorks(key string) bool {
	_, err := s.deps.Accounts.Authenticate(key)
	if err != nil && !errors.Is(err, storage.ErrAPIKeyNotFound) {
		s.log.Warn("event stream: check the key", "err", err)
	}
	return err == nil
}

// sseWriter writes Server-Sent Events; the first error sticks.
type sseWriter struct {
	w   gin.ResponseWriter
	rc  *http.ResponseController
	err error
}

func (w *sseWriter) raw(s string) {
	if w.err == nil {
		_ = w.rc.SetWriteDeadline(time.Now().Add(streamWriteTimeout))
		_, w.err = w.w.WriteString(s)
	}
}

func (w *sseWriter) event(id string, v export.TaskView) {
	data, err := json.Marshal(v)
	if err != nil {
		w.err = err
		return
	}
	w.raw("id: " + id + "\nevent: task.updated\ndata: " + string(data) + "\n\n")
}

func (w *sseWriter) flush() error {
	if w.err == nil {
		_ = w.rc.SetWriteDeadline(time.Now().Add(streamWriteTimeout))
		w.err = w.rc.Flush()
	}
	return w.err
}
