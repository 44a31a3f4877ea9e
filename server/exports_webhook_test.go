package server_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/cutroom/cutroom/export/exporttest"
	"github.com/cutroom/cutroom/webhook"
)

// received is one callback as the receiver saw it.
type received struct {
	eventType string
	eventID   string
	status    int // what the receiver answered
	body      []byte
	header    http.Header
}

// receiver is a webhook endpoint on loopback that verifies every signature against the
// raw body and answers the statuses in fail (in order) before answering 204.
type receiver struct {
	t      *testing.T
	secret string
	mu     sync.Mutex
	got    []received
	fail   map[string][]int // event type -> statuses to answer first
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	ts, err := strconv.ParseInt(r.Header.Get("X-Service-Timestamp"), 10, 64)
	if err != nil || !webhook.Verify(rc.secret, ts, raw, r.Header.Get("X-Service-Signature")) {
		rc.t.Errorf("bad signature on %s", raw)
		w.WriteHeader(401)
		return
	}
	var ev struct {
		EventType string `json:"eventType"`
	}
	if err := json.Unmarshal(raw, &ev); err != nil {
		w.WriteHeader(400)
		return
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	status := 204
	if q := rc.fail[ev.EventType]; len(q) > 0 {
		status, rc.fail[ev.EventType] = q[0], q[1:]
	}
	rc.got = append(rc.got, received{ev.EventType, r.Header.Get("X-Service-Event-Id"), status, raw, r.Header.Clone()})
	w.WriteHeader(status)
}

func (rc *receiver) snapshot() []received {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]received(nil), rc.got...)
}

func TestExportWebhooks(t *testing.T) {
	e := newExportEnv(t, exportOpts{allow: []string{"loopback"}, frameDelay: 10 * time.Millisecond})
	rc := &receiver{t: t, secret: "whsec-test-secret-a", fail: map[string][]int{"EXPORT_COMPLETED": {500, 503}}}
	hook := httptest.NewServer(rc)
	defer hook.Close()

	r := e.do("POST", "/v1/exports", e.keyA, exportBody(solidState(640, 360, 0.5),
		"callbackUrl", hook.URL+"/hook", "callbackHeaders", map[string]string{"X-Tenant": "t-1"}))
	if r.Status != 201 {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	id := r.Data()["taskId"].(string)
	e.waitTask(e.keyA, id, 30*time.Second, statusIs("COMPLETED"))
	deadline := time.Now().Add(10 * time.Second)
	var got []received
	for {
		got = rc.snapshot()
		if n := len(got); n > 0 && got[n-1].eventType == "EXPORT_COMPLETED" && got[n-1].status == 204 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("completed event not delivered: %d callbacks", len(got))
		}
		time.Sleep(10 * time.Millisecond)
	}
	// STARTED once, then COMPLETED three times (500, 503, then 204) with one event id.
	if len(got) != 4 || got[0].eventType != "EXPORT_STARTED" {
		t.Fatalf("callbacks: %+v", got)
	}
	for _, g := range got[1:] {
		if g.eventType != "EXPORT_COMPLETED" || g.eventID != got[1].eventID || !bytes.Equal(g.body, got[1].body) {
			t.Fatalf("retry differs: %+v", g)
		}
	}
	if got[0].eventID == got[1].eventID || got[0].eventID == "" {
		t.Fatalf("event ids: %q %q", got[0].eventID, got[1].eventID)
	}
	h := got[0].header
	if h.Get("Content-Type") != "application/json" || h.Get("X-Tenant") != "t-1" {
		t.Fatalf("headers: %v", h)
	}
	var started, completed struct {
		EventType  string          `json:"eventType"`
		OccurredAt string          `json:"occurredAt"`
		Task       json.RawMessage `json:"task"`
	}
	if err := json.Unmarshal(got[0].body, &started); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(got[3].body, &completed); err != nil {
		t.Fatal(err)
	}
	var st map[string]any
	_ = json.Unmarshal(started.Task, &st)
	if st["status"] != "PROCESSING" || st["exportPhase"] != "rendering" || st["outputUrl"] != nil || started.OccurredAt == "" {
		t.Fatalf("started task: %s", started.Task)
	}
	// The completed event's task is exactly what GET shows.
	var env struct {
		Data json.RawMessage `json:"data"`
	}
	_ = json.Unmarshal(e.do("GET", "/v1/exports/"+id, e.keyA, nil).Body, &env)
	if !bytes.Equal(completed.Task, env.Data) {
		t.Fatalf("webhook task differs from GET:\n%s\n%s", completed.Task, env.Data)
	}
	// The link in the webhook downloads the file.
	var ct map[string]any
	_ = json.Unmarshal(completed.Task, &ct)
	if resp, _ := e.download(ct["outputUrl"].(string)); resp.Status != 200 || len(resp.Body) == 0 {
		t.Fatalf("download from webhook link: %d", resp.Status)
	}
	// Cancel sends nothing.
	r = e.do("POST", "/v1/exports", e.keyA, exportBody(solidState(640, 360, 20), "callbackUrl", hook.URL+"/hook"))
	id2 := r.Data()["taskId"].(string)
	e.waitTask(e.keyA, id2, 10*time.Second, statusIs("PROCESSING"))
	e.do("DELETE", "/v1/exports/"+id2, e.keyA, nil)
	time.Sleep(300 * time.Millisecond)
	for _, g := range rc.snapshot()[4:] {
		if g.eventType != "EXPORT_STARTED" {
			t.Fatalf("event after cancel: %s", g.eventType)
		}
	}
}

func TestExportWebhookFailedEvent(t *testing.T) {
	e := newExportEnv(t, exportOpts{allow: []string{"loopback"}, fail: exporttest.ErrBoom})
	rc := &receiver{t: t, secret: "whsec-test-secret-a"}
	hook := httptest.NewServer(rc)
	defer hook.Close()
	r := e.do("POST", "/v1/exports", e.keyA, exportBody(solidState(640, 360, 1), "callbackUrl", hook.URL))
	id := r.Data()["taskId"].(string)
	e.waitTask(e.keyA, id, 30*time.Second, statusIs("FAILED"))
	deadline := time.Now().Add(10 * time.Second)
	for len(rc.snapshot()) < 2 {
		if time.Now().After(deadline) {
			t.Fatalf("events: %+v", rc.snapshot())
		}
		time.Sleep(10 * time.Millisecond)
	}
	got := rc.snapshot()
	if got[0].eventType != "EXPORT_STARTED" || got[1].eventType != "EXPORT_FAILED" {
		t.Fatalf("order: %s, %s", got[0].eventType, got[1].eventType)
	}
	var ev struct {
		Task map[string]any `json:"task"`
	}
	_ = json.Unmarshal(got[1].body, &ev)
	if ev.Task["status"] != "FAILED" || ev.Task["error"] == nil {
		t.Fatalf("failed task: %s", got[1].body)
	}
}
