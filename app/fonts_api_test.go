package app_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cutroom/cutroom/app"
	"github.com/cutroom/cutroom/internal/apptest"
)

// copyFont copies an embedded font file of compositor/text into dir.
func copyFont(t *testing.T, name, dir string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "compositor", "text", "fonts", name))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestFontsRoute: GET /v1/fonts lists every family of the App's font library with its
// weights, styles and where its faces come from, most preferred first: the data dir's
// fonts directory, a --fonts directory, an uploaded font and the embedded fonts; it needs
// a key.
func TestFontsRoute(t *testing.T) {
	data, extra := t.TempDir(), t.TempDir()
	copyFont(t, "NotoSansMono-Bold.ttf", filepath.Join(data, "fonts", "mono"))
	copyFont(t, "NotoSerif-Italic.ttf", extra)
	a := apptest.Serve(t, app.Config{DataDir: data, FontDirs: []string{extra}, NoSystemFonts: true}, nil)
	font, err := os.ReadFile(filepath.Join("..", "compositor", "text", "fonts", "NotoSansHebrew-Bold.ttf"))
	if err != nil {
		t.Fatal(err)
	}
	if r := call(t, a, "POST", "/v1/uploads", font, "x-file-name", "hebrew.ttf", "Content-Type", "font/ttf"); r.status != 201 {
		t.Fatalf("upload: %d %s", r.status, r.body)
	}
	r := call(t, a, "GET", "/v1/fonts", nil)
	var got struct {
		Data []struct {
			Family  string   `json:"family"`
			Weights []int    `json:"weights"`
			Styles  []string `json:"styles"`
			Source  string   `json:"source"`
			Sources []string `json:"sources"`
		} `json:"data"`
	}
	if r.status != 200 || json.Unmarshal([]byte(r.body), &got) != nil {
		t.Fatalf("GET /v1/fonts: %d %s", r.status, r.body)
	}
	want := map[string]struct {
		weights []int
		styles  []string
		sources []string
	}{
		"Noto Sans Mono":   {[]int{400, 700}, []string{"normal"}, []string{"dataDir", "embedded"}},
		"Noto Serif":       {[]int{400, 700}, []string{"normal", "italic"}, []string{"fontsDir", "embedded"}},
		"Noto Sans Hebrew": {[]int{400, 700}, []string{"normal"}, []string{"uploaded", "embedded"}},
		"Noto Sans":        {[]int{400, 600, 700}, []string{"normal", "italic"}, []string{"embedded"}},
	}
	seen := 0
	for i, f := range got.Data {
		if i > 0 && strings.ToLower(got.Data[i-1].Family) > strings.ToLower(f.Family) {
			t.Errorf("not sorted: %q before %q", got.Data[i-1].Family, f.Family)
		}
		w, ok := want[f.Family]
		if !ok {
			continue
		}
		seen++
		if !slices.Equal(f.Weights, w.weights) || !slices.Equal(f.Styles, w.styles) || !slices.Equal(f.Sources, w.sources) || f.Source != w.sources[0] {
			t.Errorf("%s: %+v, want %+v", f.Family, f, w)
		}
	}
	if seen != len(want) {
		t.Fatalf("families %s", r.body)
	}
	if r := (&testApp{Served: a, t: t}).do("GET", "/v1/fonts", nil, false); r.status != 401 || r.json["errorCode"] != "OPEN_API_KEY_INVALID" {
		t.Fatalf("without a key: %d %s", r.status, r.body)
	}
}
