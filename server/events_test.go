package server_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cutroom/cutroom/internal/ssetest"
	"github.com/cutroom/cutroom/server"
)

// openStream opens the event stream on base with key (and Last-Event-ID when set); it
// returns the response for a non-200 answer, which the caller checks.
func openStream(t *testing.T, base, key, lastID string) (*ssetest.Stream, *http.Response) {
	t.Helper()
	return ssetest.Open(t, base+"/v1/exports/events", key, lastID)
}

// seqOf returns the sequence part of an event id ("<epoch>-<seq>").
func seqOf(t *testing.T, id string) uint64 {
	t.Helper()
	_, n, ok := strings.Cut(id, "-")
	v, err := strconv.ParseUint(n, 10, 64)
	if !ok || err != nil {
		t.Fatalf("event id %q is not <epoch>-<seq>", id)
	}
	return v
}

// taskLog collects the events of one stream per task and checks the rule of a lossless
// stream: ids rise by exactly one (every change of this workspace, none dropped: the
// tests use one workspace only) and each task's progress runs through every percentage.
type taskLog struct {
	lastSeq  uint64
	progress map[string]map[float64]bool
	status   map[string]string
	last     map[string]map[string]any // each task's last event's data
}

func newTaskLog() *taskLog {
	return &taskLog{progress: map[string]map[float64]bool{}, status: map[string]string{}, last: map[string]map[string]any{}}
}

func (l *taskLog) add(t *testing.T, ev ssetest.Event) {
	t.Helper()
	if ev.Event != "task.updated" {
		t.Fatalf("event %q, want task.updated", ev.Event)
	}
	seq := seqOf(t, ev.ID)
	if l.lastSeq != 0 && seq != l.lastSeq+1 {
		t.Fatalf("event id %d after %d: changes were dropped", seq, l.lastSeq)
	}
	l.lastSeq = seq
	id, _ := ev.Task["taskId"].(string)
	if l.progress[id] == nil {
		l.progress[id] = map[float64]bool{}
	}
	l.progress[id][ev.Task["progress"].(float64)] = true
	l.status[id] = ev.Task["status"].(string)
	l.last[id] = ev.Task
}

// complete checks that every task of ids ended COMPLETED and showed each percentage
// 1..94 (a render of 190 frames with no progress throttling writes each one).
func (l *taskLog) complete(t *testing.T, ids []string) {
	t.Helper()
	for _, id := range ids {
		if l.status[id] != "COMPLETED" {
			t.Fatalf("task %s: last status %q", id, l.status[id])
		}
		for p := 1; p <= 94; p++ {
			if !l.progress[id][float64(p)] {
				t.Fatalf("task %s: progress %d%% never arrived", id, p)
			}
		}
	}
}

func (l *taskLog) done(ids []string) bool {
	for _, id := range ids {
		if l.status[id] != "COMPLETED" {
			return false
		}
	}
	return true
}

// progressBody is a stateless export of 190 frames (30 fps) at 128x72.
func progressBody() map[string]any {
	return exportBody(solidState(128, 72, 190.0/30), "scale", 1)
}

// TestEventsManyUpdatesManyStreams: 11 exports of 190 frames each (progress written at
// every percentage) make 1,089 changes; each of 10 open streams receives every one of
// them, in order, with consecutive ids; no change is coalesced or dropped.
func TestEventsManyUpdatesManyStreams(t *testing.T) {
	e := newExportEnv(t, exportOpts{workers: 2, maxActive: 20, progress: time.Nanosecond,
		server: func(c *server.Config) { c.MaxEventStreams = 10 }})
	ts := httptest.NewServer(e.h)
	defer ts.Close()
	var streams []*ssetest.Stream
	for range 10 {
		s, resp := openStream(t, ts.URL, e.keyA, "")
		if s == nil {
			t.Fatalf("stream refused: %d", resp.StatusCode)
		}
		defer s.Close()
		streams = append(streams, s)
	}
	var ids []string
	for range 11 {
		r := e.do("POST", "/v1/exports", e.keyA, progressBody())
		if r.Status != 201 {
			t.Fatalf("create: %d %s", r.Status, r.Body)
		}
		ids = append(ids, r.Data()["taskId"].(string))
	}
	var wg sync.WaitGroup
	logs := make([]*taskLog, len(streams))
	for i, s := range streams {
		logs[i] = newTaskLog()
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !logs[i].done(ids) {
				ev, ok := s.Next(t, 60*time.Second)
				if !ok {
					t.Errorf("stream %d ended early", i)
					return
				}
				logs[i].add(t, ev)
			}
		}()
	}
	wg.Wait()
	total := 0
	for i, l := range logs {
		l.complete(t, ids)
		if i == 0 {
			for _, p := range l.progress {
				total += len(p)
			}
		}
	}
	if total < 1000 {
		t.Fatalf("only %d distinct progress updates; the test wants 1,000 or more", total)
	}
	// Each event's data is the task as GET shows it.
	got := e.do("GET", "/v1/exports/"+ids[0], e.keyA, nil).Data()
	if got["status"] != "COMPLETED" || got["outputUrl"] == nil {
		t.Fatalf("GET after the stream: %v", got)
	}
}

// TestEventsResumeAfterReconnect: a client that drops its stream mid-render and
// reconnects with Last-Event-ID gets every change it missed; an id the server cannot
// replay (another database's) gets the current state of the workspace's tasks first.
func TestEventsResumeAfterReconnect(t *testing.T) {
	e := newExportEnv(t, exportOpts{workers: 1, maxActive: 20, progress: time.Nanosecond, frameDelay: 4 * time.Millisecond})
	ts := httptest.NewServer(e.h)
	defer ts.Close()
	s, _ := openStream(t, ts.URL, e.keyA, "")
	r := e.do("POST", "/v1/exports", e.keyA, progressBody())
	id := r.Data()["taskId"].(string)
	log := newTaskLog()
	var lastID string
	for log.progress[id] == nil || len(log.progress[id]) < 20 {
		ev, _ := s.Next(t, 10*time.Second)
		log.add(t, ev)
		lastID = ev.ID
	}
	s.Close()
	time.Sleep(200 * time.Millisecond) // changes happen while no stream is open
	s2, _ := openStream(t, ts.URL, e.keyA, lastID)
	defer s2.Close()
	for !log.done([]string{id}) {
		ev, ok := s2.Next(t, 10*time.Second)
		if !ok {
			t.Fatal("stream ended")
		}
		log.add(t, ev)
	}
	log.complete(t, []string{id})

	// An id of another database: the current state first, then live changes.
	s3, _ := openStream(t, ts.URL, e.keyA, "0badc0de-17")
	defer s3.Close()
	ev, _ := s3.Next(t, 5*time.Second)
	if ev.Task["taskId"] != id || ev.Task["status"] != "COMPLETED" {
		t.Fatalf("resync sent %v, want the completed task", ev.Task)
	}
	r = e.do("POST", "/v1/exports", e.keyA, progressBody())
	newID := r.Data()["taskId"].(string)
	ev, _ = s3.Next(t, 5*time.Second)
	if ev.Task["taskId"] != newID || ev.Task["status"] != "PENDING" || seqOf(t, ev.ID) <= seqOf(t, lastID) {
		t.Fatalf("after the resync: %+v", ev)
	}
	// Another workspace's stream sees none of this.
	sb, _ := openStream(t, ts.URL, e.keyB, "0badc0de-17")
	defer sb.Close()
	select {
	case ev, ok := <-sb.Events():
		if ok && ev.Comment == "" {
			t.Fatalf("workspace b received %+v", ev)
		}
	case <-time.After(300 * time.Millisecond):
	}
}

// TestEventsHeartbeatRevocationAndLimit: a heartbeat comment arrives on an idle stream;
// a revoked key's stream ends; a key with MaxEventStreams open gets 429 with Retry-After
// (another key of the workspace is not affected), and a closed stream frees its place.
func TestEventsHeartbeatRevocationAndLimit(t *testing.T) {
	e := newExportEnv(t, exportOpts{server: func(c *server.Config) {
		c.EventHeartbeat, c.MaxEventStreams = 50*time.Millisecond, 2
	}})
	ts := httptest.NewServer(e.h)
	defer ts.Close()
	a1, _ := openStream(t, ts.URL, e.keyA, "")
	defer a1.Close()
	select {
	case ev := <-a1.Events():
		if ev.Comment != "heartbeat" {
			t.Fatalf("first line %+v, want the heartbeat comment", ev)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no heartbeat")
	}
	a2, _ := openStream(t, ts.URL, e.keyA, "")
	defer a2.Close()
	if s, resp := openStream(t, ts.URL, e.keyA, ""); s != nil {
		s.Close()
		t.Fatal("a third stream of the key was accepted")
	} else if resp.StatusCode != 429 || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("third stream: %d, Retry-After %q", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	r := e.do("GET", "/v1/exports/events", e.keyA, nil)
	r.Problem(429, "EVENT_STREAMS_LIMIT")
	other, _ := openStream(t, ts.URL, e.keyA2, "")
	if other == nil {
		t.Fatal("another key of the workspace was refused")
	}
	defer other.Close()
	a2.Close()
	deadline := time.Now().Add(5 * time.Second)
	for {
		s, _ := openStream(t, ts.URL, e.keyA, "")
		if s != nil {
			s.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("a closed stream did not free its place")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if _, err := e.db.RevokeKey(keyID(t, e.db, e.keyA)); err != nil {
		t.Fatal(err)
	}
	a1.WaitClosed(t, 5*time.Second, "the key was revoked")
	select {
	case _, ok := <-other.Events():
		if !ok {
			t.Fatal("the other key's stream closed too")
		}
	case <-time.After(200 * time.Millisecond):
	}
}

// TestEventsEndOnShutdown: http.Server.Shutdown (as the App's shutdown calls it) ends open
// streams at once instead of waiting for them.
func TestEventsEndOnShutdown(t *testing.T) {
	e := newExportEnv(t, exportOpts{})
	hs := e.srv.HTTPServer("127.0.0.1:0")
	hs.Handler = e.h
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	s, _ := openStream(t, "http://"+ln.Addr().String(), e.keyA, "")
	defer s.Close()
	time.Sleep(50 * time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	start := time.Now()
	if err := hs.Shutdown(ctx); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("shutdown waited %v for the stream", d)
	}
	s.WaitClosed(t, 2*time.Second, "shutdown")
	<-served
}
