package server_test

import (
	"net/http"
	"strconv"
	"testing"
	"time"
)

// TestUsagePerDay: GET /v1/usage counts, per UTC day, the export tasks created that day,
// the completed ones and the credits they charged (a canceled task was refunded: 0), every
// day of the window present, oldest first, with the total in meta; another workspace sees
// none of it; a bad days is refused; no key is 401.
func TestUsagePerDay(t *testing.T) {
	e := newExportEnv(t, exportOpts{frameDelay: 20 * time.Millisecond})
	state := solidState(320, 180, 2)
	start := func() map[string]any {
		t.Helper()
		r := e.do("POST", "/v1/exports", e.keyA, exportBody(state))
		if r.Status != http.StatusCreated {
			t.Fatalf("create: %d %s", r.Status, r.Body)
		}
		return r.Data()
	}
	canceled := start()
	if r := e.do("DELETE", "/v1/exports/"+canceled["taskId"].(string), e.keyA, nil); r.Status != http.StatusOK {
		t.Fatalf("cancel: %d %s", r.Status, r.Body)
	}
	e.clock.Advance(24 * time.Hour)
	done := start()
	e.waitTask(e.keyA, done["taskId"].(string), 30*time.Second, statusIs("COMPLETED"))
	charged, _ := strconv.Atoi(done["chargedCredits"].(string))
	if charged < 1 {
		t.Fatalf("the export charged %v", done["chargedCredits"])
	}
	day := func(task map[string]any) string {
		ts, err := time.Parse(time.RFC3339, task["createdAt"].(string))
		if err != nil {
			t.Fatal(err)
		}
		return ts.UTC().Format(time.DateOnly)
	}

	r := e.do("GET", "/v1/usage?days=3", e.keyA, nil)
	if r.Status != http.StatusOK {
		t.Fatalf("usage: %d %s", r.Status, r.Body)
	}
	m := r.JSON()
	rows := m["data"].([]any)
	if len(rows) != 3 {
		t.Fatalf("%d days, want 3: %s", len(rows), r.Body)
	}
	want := map[string]string{day(canceled): "1 0 0", day(done): "1 1 " + strconv.Itoa(charged)}
	today := e.clock.Now().UTC().Truncate(24 * time.Hour)
	for i, row := range rows {
		d := row.(map[string]any)
		date := d["date"].(string)
		if wantDate := today.AddDate(0, 0, i-2).Format(time.DateOnly); date != wantDate {
			t.Errorf("day %d is %s, want %s", i, date, wantDate)
		}
		got := strconv.Itoa(int(d["exports"].(float64))) + " " + strconv.Itoa(int(d["completed"].(float64))) + " " + d["chargedCredits"].(string)
		w, ok := want[date]
		if !ok {
			w = "0 0 0"
		}
		if got != w {
			t.Errorf("%s: exports, completed, credits %q, want %q", date, got, w)
		}
	}
	meta := m["meta"].(map[string]any)
	if meta["chargedCredits"] != strconv.Itoa(charged) || meta["days"].(float64) != 3 {
		t.Errorf("meta %v, want %d credits over 3 days", meta, charged)
	}
	// The default window is 30 days; another workspace's is all zeros.
	if rows := e.do("GET", "/v1/usage", e.keyA, nil).JSON()["data"].([]any); len(rows) != 30 {
		t.Errorf("the default window has %d days", len(rows))
	}
	if meta := e.do("GET", "/v1/usage", e.keyB, nil).JSON()["meta"].(map[string]any); meta["chargedCredits"] != "0" {
		t.Errorf("workspace b's usage: %v", meta)
	}
	for _, q := range []string{"0", "93", "x", ""} {
		e.do("GET", "/v1/usage?days="+q, e.keyA, nil).Problem(400, "INVALID_QUERY_PARAMETER")
	}
	e.do("GET", "/v1/usage", "", nil).Problem(401, "OPEN_API_KEY_INVALID")
}
