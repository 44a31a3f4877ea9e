package server_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cutroom/cutroom/editor"
	"github.com/cutroom/cutroom/server"
)

func TestValidateRoute(t *testing.T) {
	e := newEnv(t)
	capVersion := e.do("GET", "/v1/editor/capabilities", e.keyA, nil).Data()["version"].(string)
	files, err := filepath.Glob("../editor/testdata/editor-state.*.json")
	if err != nil || len(files) < 10 {
		t.Fatalf("fixtures: %v %d", err, len(files))
	}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(f)
		// Validate needs a key but not runtime access.
		r := e.do("POST", "/v1/editor/validate", e.keyOff, `{"editorState":`+string(raw)+`}`)
		if r.Status != 200 {
			t.Fatalf("%s: %d %s", name, r.Status, r.Body)
		}
		m := r.JSON()
		if m["meta"].(map[string]any)["capabilitiesVersion"] != capVersion {
			t.Fatalf("%s: meta %v, want capabilitiesVersion %s", name, m["meta"], capVersion)
		}
		d := m["data"].(map[string]any)
		errs := d["errors"].([]any)
		wantValid := strings.Contains(name, ".valid.")
		if name == "editor-state.valid.text-template.json" {
			// Schema-valid, but its graphic component-hero-mark is neither built in nor
			// registered by the workspace (see TestIllustrationUploads).
			if d["valid"] != false || len(errs) != 1 || errs[0].(map[string]any)["code"] != "EDITOR_ILLUSTRATION_UNKNOWN" {
				t.Fatalf("%s: valid=%v errors=%v", name, d["valid"], errs)
			}
			continue
		}
		if d["valid"] != wantValid || (wantValid != (len(errs) == 0)) {
			t.Fatalf("%s: valid=%v errors=%v", name, d["valid"], errs)
		}
		for _, x := range errs {
			is := x.(map[string]any)
			if !strings.HasPrefix(is["code"].(string), "EDITOR_") || !strings.HasPrefix(is["path"].(string), "/") || is["message"] == "" {
				t.Fatalf("%s: malformed issue %v", name, is)
			}
		}
	}
	e.do("POST", "/v1/editor/validate", "", `{"editorState":{}}`).Problem(401, "OPEN_API_KEY_INVALID")
	e.do("POST", "/v1/editor/validate", e.keyA, `{}`).Problem(400, "FIELD_REQUIRED")
	e.do("POST", "/v1/editor/validate", e.keyA, `{"editorState":`).Problem(400, "INVALID_JSON")
	// Not an object is a validation answer, not a crash.
	if r := e.do("POST", "/v1/editor/validate", e.keyA, `{"editorState":[1]}`); r.Status != 200 || r.Data()["valid"] != false {
		t.Fatalf("array state: %d %s", r.Status, r.Body)
	}
}

func TestCapabilitiesRoute(t *testing.T) {
	e := newEnv(t)
	r := e.do("GET", "/v1/editor/capabilities", e.keyOff, nil)
	if r.Status != 200 {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	d := r.Data()
	for _, k := range []string{"version", "animations", "captionAnimations", "transitions", "transitionPresets",
		"effects", "effectPresets", "filters", "filterPresets", "shapes", "backgroundPresets"} {
		if _, ok := d[k]; !ok {
			t.Fatalf("capabilities lack %s: %s", k, r.Body)
		}
	}
	has := func(list any, v string) bool {
		for _, x := range list.([]any) {
			if x == v {
				return true
			}
		}
		return false
	}
	if !has(d["transitions"], "flip") || !has(d["shapes"], "star") || !has(d["itemTypes"], "lottie") {
		t.Fatalf("full renderer lacks flip/star/lottie: %s", r.Body)
	}
	// A renderer without flip and star does not advertise them, and the version changes.
	limited := editor.AllFeatures()
	limited.Transitions = without(limited.Transitions, "flip")
	limited.Shapes = without(limited.Shapes, "star")
	limited.ItemTypes = slices.DeleteFunc(slices.Clone(limited.ItemTypes), func(t editor.ItemType) bool { return t == editor.ItemLottie })
	e2 := newEnv(t, func(c *server.Config) { c.Features = limited })
	d2 := e2.do("GET", "/v1/editor/capabilities", e2.keyA, nil).Data()
	if has(d2["transitions"], "flip") || has(d2["shapes"], "star") || has(d2["itemTypes"], "lottie") || d2["version"] == d["version"] {
		t.Fatalf("limited capabilities: %v", d2)
	}
	e.do("GET", "/v1/editor/capabilities", "", nil).Problem(401, "OPEN_API_KEY_INVALID")
}

func without(list []string, drop string) []string {
	var out []string
	for _, s := range list {
		if s != drop {
			out = append(out, s)
		}
	}
	return out
}

func TestIllustrationsRoute(t *testing.T) {
	e := newEnv(t)
	all := e.do("GET", "/v1/illustrations", e.keyOff, nil).JSON()["data"].([]any)
	if len(all) < 150 {
		t.Fatalf("%d illustrations, want >= 150", len(all))
	}
	arrows := e.do("GET", "/v1/illustrations?q=arrow", e.keyA, nil).JSON()["data"].([]any)
	if len(arrows) == 0 || len(arrows) >= len(all) || !strings.Contains(arrows[0].(string), "arrow") {
		t.Fatalf("q=arrow: %v", arrows)
	}
	none := e.do("GET", "/v1/illustrations?q=zzqqxxjj", e.keyA, nil).JSON()["data"].([]any)
	if len(none) != 0 {
		t.Fatalf("nonsense query matched %v", none)
	}
	e.do("GET", "/v1/illustrations?q="+strings.Repeat("a", 201), e.keyA, nil).Problem(400, "INVALID_QUERY_PARAMETER")
	e.do("GET", "/v1/illustrations", "", nil).Problem(401, "OPEN_API_KEY_INVALID")
}

func TestFontsRoute(t *testing.T) {
	e := newEnv(t)
	list := func() []string {
		var out []string
		for _, x := range e.do("GET", "/v1/editor/fonts", e.keyOff, nil).JSON()["data"].([]any) {
			out = append(out, x.(string))
		}
		return out
	}
	before := list()
	for _, fam := range []string{"Noto Sans", "Noto Serif", "Noto Sans Mono"} {
		if !slices.Contains(before, fam) {
			t.Fatalf("embedded family %q not listed: %v", fam, before)
		}
	}
	// An uploaded font joins the families text can name.
	font, err := os.ReadFile("testdata/media/font.ttf")
	if err != nil {
		t.Fatal(err)
	}
	mustUpload(e, "brand.ttf", "font/ttf", font)
	after := list()
	if len(after) != len(before)+1 {
		t.Fatalf("families before %d, after upload %d: %v", len(before), len(after), after)
	}
	e.do("GET", "/v1/editor/fonts", "", nil).Problem(401, "OPEN_API_KEY_INVALID")
}
