// Package ssetest is test support only (imported by _test files): a client of a
// Server-Sent Events stream (GET /v1/exports/events) that reads its events in the
// background, for the tests that follow tasks through the stream on one server or several.
package ssetest

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// Event is one event of a stream; Comment is set for a comment line instead.
type Event struct {
	ID, Event string
	Task      map[string]any // the data, decoded
	Comment   string
}

// Stream is an open event stream.
type Stream struct {
	Resp   *http.Response
	events chan Event // closed when the stream ends
	cancel context.CancelFunc
}

// Open opens GET url with the API key (and Last-Event-ID when lastID is set). A 200 answer
// is read in the background and returned as a Stream; any other answer is returned for the
// caller to check its status and headers (its body closed).
func Open(t *testing.T, url, key, lastID string) (*Stream, *http.Response) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
	req.Header.Set("x-api-key", key)
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	if resp.StatusCode != 200 {
		cancel()
		resp.Body.Close()
		return nil, resp
	}
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		cancel()
		t.Fatalf("content type %q", ct)
	}
	s := &Stream{Resp: resp, events: make(chan Event, 100000), cancel: cancel}
	go func() {
		defer close(s.events)
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		var ev Event
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				if ev.Event != "" {
					s.events <- ev
				}
				ev = Event{}
			case strings.HasPrefix(line, ":"):
				s.events <- Event{Comment: strings.TrimSpace(line[1:])}
			case strings.HasPrefix(line, "id: "):
				ev.ID = line[4:]
			case strings.HasPrefix(line, "event: "):
				ev.Event = line[7:]
			case strings.HasPrefix(line, "data: "):
				if err := json.Unmarshal([]byte(line[6:]), &ev.Task); err != nil {
					t.Errorf("event data is not JSON: %v: %s", err, line)
				}
			}
		}
	}()
	return s, nil
}

// Events is the stream's events and comments as they arrive, closed when the stream ends:
// for a select that waits a short while for what should not come.
func (s *Stream) Events() <-chan Event { return s.events }

// Close ends the stream.
func (s *Stream) Close() { s.cancel() }

// Next returns the next event (not comment), or fails after within; false when the stream
// ended first.
func (s *Stream) Next(t *testing.T, within time.Duration) (Event, bool) {
	t.Helper()
	return s.Await(t, within, func(ev Event) bool { return ev.Comment != "" }, fmt.Sprintf("no event within %v", within))
}

// WaitClosed fails unless the stream ends within d.
func (s *Stream) WaitClosed(t *testing.T, d time.Duration, why string) {
	t.Helper()
	s.Await(t, d, func(Event) bool { return true }, fmt.Sprintf("the stream did not close within %v after %s", d, why))
}

// Await returns the first event skip does not pass over, or false when the stream ends
// first; it fails the test with failure after within.
func (s *Stream) Await(t *testing.T, within time.Duration, skip func(Event) bool, failure string) (Event, bool) {
	t.Helper()
	timer := time.NewTimer(within)
	defer timer.Stop()
	for {
		select {
		case ev, ok := <-s.events:
			if !ok {
				return ev, false
			}
			if !skip(ev) {
				return ev, true
			}
		case <-timer.C:
			t.Fatal(failure)
		}
	}
}
