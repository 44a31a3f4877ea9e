package server_test

import (
	"net/http/httptest"
	"testing"
	"time"
)

// TestTaskWebhookDeliveries: GET /v1/exports/{taskId}/webhooks lists a task's webhook
// events with every attempt the real deliverer made (time, status code, error), the next
// retry while one waits, and the delivery; another workspace's task is not found.
func TestTaskWebhookDeliveries(t *testing.T) {
	e := newExportEnv(t, exportOpts{allow: []string{"loopback"},
		schedule: []time.Duration{50 * time.Millisecond, time.Hour}})
	rc := &receiver{t: t, secret: "whsec-test-secret-a", fail: map[string][]int{"EXPORT_COMPLETED": {503, 500}}}
	hook := httptest.NewServer(rc)
	defer hook.Close()
	r := e.do("POST", "/v1/exports", e.keyA, exportBody(solidState(640, 360, 0.2), "callbackUrl", hook.URL+"/hook"))
	id := r.Data()["taskId"].(string)
	e.waitTask(e.keyA, id, 30*time.Second, statusIs("COMPLETED"))

	// EXPORT_STARTED is delivered at once; EXPORT_COMPLETED fails twice (503, then 500 after
	// 50 ms) and then waits an hour for its third attempt.
	var list []any
	deadline := time.Now().Add(10 * time.Second)
	for {
		r := e.do("GET", "/v1/exports/"+id+"/webhooks", e.keyA, nil)
		if r.Status != 200 {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		list = r.JSON()["data"].([]any)
		if len(list) == 2 && len(list[1].(map[string]any)["attempts"].([]any)) == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("deliveries: %s", r.Body)
		}
		time.Sleep(20 * time.Millisecond)
	}
	started, completed := list[0].(map[string]any), list[1].(map[string]any)
	if started["eventType"] != "EXPORT_STARTED" || started["status"] != "DELIVERED" || started["deliveredAt"] == nil ||
		started["nextAttemptAt"] != nil {
		t.Fatalf("started: %v", started)
	}
	if a := started["attempts"].([]any); len(a) != 1 || a[0].(map[string]any)["statusCode"] != float64(204) || a[0].(map[string]any)["error"] != nil {
		t.Fatalf("started attempts: %v", a)
	}
	if completed["eventType"] != "EXPORT_COMPLETED" || completed["status"] != "PENDING" || completed["deliveredAt"] != nil {
		t.Fatalf("completed: %v", completed)
	}
	next, err := time.Parse(time.RFC3339, completed["nextAttemptAt"].(string))
	if err != nil || time.Until(next) < 50*time.Minute {
		t.Fatalf("nextAttemptAt %v (%v), want about an hour ahead", completed["nextAttemptAt"], err)
	}
	a := completed["attempts"].([]any)
	for i, want := range []float64{503, 500} {
		at := a[i].(map[string]any)
		if at["statusCode"] != want || at["error"] == nil || at["at"] == nil {
			t.Fatalf("attempt %d: %v", i, at)
		}
	}
	if completed["lastError"] == nil {
		t.Fatal("no lastError")
	}
	if _, ok := completed["headers"]; ok {
		t.Fatal("headers are shown")
	}
	e.do("GET", "/v1/exports/"+id+"/webhooks", e.keyB, nil).Problem(404, "TASK_NOT_FOUND")

	// A task without callbackUrl has none.
	r = e.do("POST", "/v1/exports", e.keyA, exportBody(solidState(640, 360, 0.2)))
	plain := r.Data()["taskId"].(string)
	if r := e.do("GET", "/v1/exports/"+plain+"/webhooks", e.keyA, nil); r.Status != 200 || len(r.JSON()["data"].([]any)) != 0 {
		t.Fatalf("no callback: %d %s", r.Status, r.Body)
	}
}
