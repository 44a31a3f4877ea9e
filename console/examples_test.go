package console_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"
)

// Every example state the console offers (static/examples/index.json) is a file beside
// it that the real server's POST /v1/editor/validate finds valid, without warnings.
func TestExampleStatesValidate(t *testing.T) {
	var index []struct{ File, Title, Description string }
	b, err := os.ReadFile(filepath.Join("static", "examples", "index.json"))
	if err != nil || json.Unmarshal(b, &index) != nil || len(index) < 2 {
		t.Fatalf("index.json: %v, %d examples", err, len(index))
	}
	s := serve(t)
	for _, ex := range index {
		state, err := os.ReadFile(filepath.Join("static", "examples", ex.File))
		if err != nil || ex.Title == "" || ex.Description == "" {
			t.Fatalf("%+v: %v", ex, err)
		}
		body, _ := json.Marshal(map[string]json.RawMessage{"editorState": state})
		req, _ := http.NewRequest("POST", s.base+"/v1/editor/validate", bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+s.key)
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		out, _ := io.ReadAll(res.Body)
		res.Body.Close()
		var r struct {
			Data struct{ Valid bool }
			Meta struct{ Warnings []any }
		}
		if res.StatusCode != 200 || json.Unmarshal(out, &r) != nil || !r.Data.Valid || len(r.Meta.Warnings) != 0 {
			t.Errorf("%s: %d %s", ex.File, res.StatusCode, out)
		}
	}
}
