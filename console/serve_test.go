package console_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/cutroom/cutroom/app"
	"github.com/cutroom/cutroom/internal/apptest"
)

// served is a real App (bbolt, renderer, encoders) serving on loopback with a workspace and
// its key.
type served struct {
	base, key string
}

func serve(t *testing.T) *served {
	t.Helper()
	// Webhooks may go to loopback (the test's receiver), signed with the workspace's secret.
	s := apptest.Serve(t, app.Config{AllowHosts: []string{"loopback"}}, apptest.WebhookSecret(t, "console-test-webhook-secret"))
	return &served{base: s.BaseURL, key: s.Key}
}

// api calls the API with the key and decodes the answer's data into out (when not nil).
func (s *served) api(t *testing.T, method, path string, body any, out any) int {
	t.Helper()
	var r io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		r = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, s.base+path, r)
	req.Header.Set("Authorization", "Bearer "+s.key)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if out != nil && res.StatusCode < 300 {
		env := struct{ Data json.RawMessage }{}
		if err := json.Unmarshal(b, &env); err != nil {
			t.Fatalf("%s %s: %v: %s", method, path, err, b)
		}
		if err := json.Unmarshal(env.Data, out); err != nil {
			t.Fatalf("%s %s: %v: %s", method, path, err, b)
		}
	}
	return res.StatusCode
}

// twoColours is a 320x180 state of 2 s: red for the first second, blue for the next.
func twoColours(seconds int) map[string]any {
	item := func(id, color string, start int64, dur int64) map[string]any {
		p := func(v float64) map[string]any { return map[string]any{"value": v, "keyframes": []any{}} }
		return map[string]any{"id": id, "type": "solid", "startTicks": start, "durationTicks": dur, "shape": "rectangle",
			"color": color, "left": p(0), "top": p(0), "width": p(320), "height": p(180), "scaleX": p(1), "scaleY": p(1),
			"opacity": p(1), "isDraggingInTimeline": false, "borderRadius": p(0), "rotation": p(0), "keepAspectRatio": false}
	}
	half := int64(seconds) * 240000 / 2
	return map[string]any{"compositionWidth": 320, "compositionHeight": 180, "timebaseTicksPerSecond": 240000,
		"tracks": []any{map[string]any{"id": "t1", "items": []string{"a", "b"}, "hidden": false, "muted": false}},
		"assets": map[string]any{}, "items": map[string]any{"a": item("a", "#dc2626", 0, half), "b": item("b", "#2563eb", half, half)},
		"transitions": map[string]any{}, "globalBackground": map[string]any{"type": "none"}, "deletedAssets": []any{}}
}
