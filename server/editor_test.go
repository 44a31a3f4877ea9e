package server_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cutroom/cutroom/assets"
	"github.com/cutroom/cutroom/compositor/text"
	"github.com/cutroom/cutroom/editor"
	"github.com/cutroom/cutroom/export"
	"github.com/cutroom/cutroom/server"
)

// withNames replaces e's handler by a server over the same database and stores whose
// Names refuse every background image that is no preset (as a server that fetches nothing
// does) and whose Unresolvable is unresolvable, with cfg changed by mutate.
func (e *env) withNames(unresolvable func(string, *editor.State) []assets.Unresolved, mutate ...func(*server.Config)) {
	cfg := server.Config{Now: e.clock.Now, PublicURL: "http://127.0.0.1:8787", Features: editor.AllFeatures()}
	for _, m := range mutate {
		m(&cfg)
	}
	names := func(string) (editor.References, error) {
		return editor.References{Background: func(u string) error { return errors.New("fetching remote images is off") }}, nil
	}
	e.h = checkAPI(e.t, server.New(cfg, server.Deps{Accounts: e.db, Projects: e.db, Idempotency: e.db, Assets: e.store, Files: e.store,
		Fonts: e.fonts, Illustrations: e.db, Names: names, Unresolvable: unresolvable}).Handler())
}

// validation is the answer of POST /v1/editor/validate.
type validation struct {
	Data struct {
		Valid  bool           `json:"valid"`
		Errors []editor.Issue `json:"errors"`
	} `json:"data"`
	Meta struct {
		CapabilitiesVersion string         `json:"capabilitiesVersion"`
		Warnings            []editor.Issue `json:"warnings"`
	} `json:"meta"`
}

func (e *env) validate(key, state string) validation {
	e.t.Helper()
	r := e.do("POST", "/v1/editor/validate", key, `{"editorState":`+state+`}`)
	if r.Status != 200 {
		e.t.Fatalf("validate: %d %s", r.Status, r.Body)
	}
	var v validation
	if err := json.Unmarshal(r.Body, &v); err != nil || v.Data.Errors == nil || v.Meta.Warnings == nil {
		e.t.Fatalf("validate answered %v: %s", err, r.Body)
	}
	// A binary built without scripts/fonts.sh lacks the embedded web fonts the examples
	// name (a plain go test; make test requires them): their missing-font warnings are
	// that build's, not the rule's.
	for _, fam := range text.WebFontsMissing() {
		v.Meta.Warnings = slices.DeleteFunc(v.Meta.Warnings, func(is editor.Issue) bool {
			return is.Code == editor.CodeFontMissing && strings.Contains(is.Message, strconv.Quote(fam))
		})
	}
	return v
}

func codes(is []editor.Issue) []string {
	var out []string
	for _, i := range is {
		out = append(out, i.Code+" "+i.Path)
	}
	return out
}

// TestValidateRoute: the interface's 14 examples answer as their names say, on a server
// that can neither fetch the runtime example's remote background nor knows the
// text-template example's graphic component-hero-mark: those are warnings (meta.warnings,
// the codes export create refuses them with), not errors. Every issue has a code, a
// pointer and a message.
func TestValidateRoute(t *testing.T) {
	e := newEnv(t)
	e.withNames(nil)
	capVersion := e.do("GET", "/v1/editor/capabilities", e.keyA, nil).Data()["version"].(string)
	files, err := filepath.Glob("../editor/testdata/editor-state.*.json")
	if err != nil || len(files) != 14 {
		t.Fatalf("fixtures: %v %d", err, len(files))
	}
	wantWarnings := map[string][]string{
		"editor-state.valid.runtime.json":       {"EDITOR_BACKGROUND_PRESET_UNKNOWN /globalBackground/imageUrl"},
		"editor-state.valid.text-template.json": {"EDITOR_ILLUSTRATION_UNKNOWN /items/item-template-1/nodes/0/imageComponentId"},
	}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(f)
		// Validate needs a key but not runtime access.
		v := e.validate(e.keyOff, string(raw))
		if v.Meta.CapabilitiesVersion != capVersion {
			t.Fatalf("%s: meta %+v, want capabilitiesVersion %s", name, v.Meta, capVersion)
		}
		wantValid := strings.Contains(name, ".valid.")
		if v.Data.Valid != wantValid || wantValid != (len(v.Data.Errors) == 0) {
			t.Fatalf("%s: valid=%v errors=%v", name, v.Data.Valid, v.Data.Errors)
		}
		if want := wantWarnings[name]; wantValid && !slices.Equal(codes(v.Meta.Warnings), want) {
			t.Fatalf("%s: warnings %v, want %v", name, v.Meta.Warnings, want)
		}
		for _, is := range append(v.Data.Errors, v.Meta.Warnings...) {
			if !strings.HasPrefix(is.Code, "E") || !strings.HasPrefix(is.Path, "/") || is.Message == "" {
				t.Fatalf("%s: malformed issue %v", name, is)
			}
		}
	}
	e.do("POST", "/v1/editor/validate", "", `{"editorState":{}}`).Problem(401, "OPEN_API_KEY_INVALID")
	e.do("POST", "/v1/editor/validate", e.keyA, `{}`).Problem(400, "FIELD_REQUIRED")
	e.do("POST", "/v1/editor/validate", e.keyA, `{"editorState":`).Problem(400, "INVALID_JSON")
	// Not an object is a validation answer, not a crash.
	if v := e.validate(e.keyA, `[1]`); v.Data.Valid || len(v.Meta.Warnings) != 0 {
		t.Fatalf("array state: %+v", v)
	}
}

// TestValidateListsEveryIssue: no rule hides another's issues. A state with a schema error
// (an item's opacity a string), a semantic error (a keyframe past its item's end) and an
// illustration nobody has lists both errors and the warning, whichever item breaks what.
func TestValidateListsEveryIssue(t *testing.T) {
	e := newEnv(t)
	v := e.validate(e.keyA, threeIssueState)
	if got, want := codes(v.Data.Errors), []string{"EDITOR_SCHEMA_INVALID /items/a/opacity/value", "EDITOR_KEYFRAME_OUT_OF_RANGE /items/b/left/keyframes/0/timeTicks"}; v.Data.Valid || !slices.Equal(got, want) {
		t.Fatalf("errors %v, want %v", v.Data.Errors, want)
	}
	if got, want := codes(v.Meta.Warnings), []string{"EDITOR_ILLUSTRATION_UNKNOWN /items/c/illustrationName"}; !slices.Equal(got, want) {
		t.Fatalf("warnings %v, want %v", v.Meta.Warnings, want)
	}
}

// threeIssueState has three illustration items on three tracks: a's opacity breaks the
// schema, b has a keyframe past its end, and c names an illustration nobody has.
var threeIssueState = func() string {
	item := func(id, name, opacity, leftKeyframes string) string {
		return `"` + id + `":{"id":"` + id + `","type":"illustration","illustrationName":"` + name + `","color":"#ff0000","isDraggingInTimeline":false,"keepAspectRatio":true,"startTicks":0,"durationTicks":240000,
			"top":{"value":0,"keyframes":[]},"left":{"value":0,"keyframes":[` + leftKeyframes + `]},"width":{"value":64,"keyframes":[]},"height":{"value":64,"keyframes":[]},
			"scaleX":{"value":1,"keyframes":[]},"scaleY":{"value":1,"keyframes":[]},"opacity":{"value":` + opacity + `,"keyframes":[]},"rotation":{"value":0,"keyframes":[]}}`
	}
	return `{"compositionWidth":64,"compositionHeight":64,"timebaseTicksPerSecond":240000,
		"tracks":[{"id":"t1","hidden":false,"muted":false,"items":["a"]},{"id":"t2","hidden":false,"muted":false,"items":["b"]},{"id":"t3","hidden":false,"muted":false,"items":["c"]}],
		"assets":{},"items":{` + item("a", "circle", `"1"`, "") + `,` + item("b", "circle", "1", `{"timeTicks":240000,"value":5}`) + `,` +
		item("c", "brand-mark", "1", "") + `},"transitions":{},"globalBackground":{"type":"none"},"deletedAssets":[]}`
}()

// TestValidateWarnsWhatTheServerCannotRender: on a server whose renderer lacks solids and
// the flip transition, a valid state using them answers valid with a warning at each use,
// and an asset the server could not read is a warning too, with the codes export create
// refuses such a state with.
func TestValidateWarnsWhatTheServerCannotRender(t *testing.T) {
	e := newEnv(t)
	limited := editor.AllFeatures()
	limited.Transitions = without(limited.Transitions, "flip")
	limited.ItemTypes = slices.DeleteFunc(slices.Clone(limited.ItemTypes), func(t editor.ItemType) bool { return t == editor.ItemSolid })
	e.withNames(func(_ string, st *editor.State) []assets.Unresolved {
		return []assets.Unresolved{{AssetID: "clip/1", Reason: "not uploaded"}}
	}, func(c *server.Config) { c.Features = limited })
	raw, err := os.ReadFile("../editor/testdata/editor-state.valid.json")
	if err != nil {
		t.Fatal(err)
	}
	// The example's one transition, made a flip; its solid item-solid-1 stays.
	flip := strings.Replace(string(raw), `"toClipId": "item-solid-1",
      "type": "fade"`, `"toClipId": "item-solid-1",
      "type": "flip"`, 1)
	if flip == string(raw) {
		t.Fatal("the example's transition was not found")
	}
	v := e.validate(e.keyA, flip)
	want := []string{"EXPORT_ASSET_UNRESOLVABLE /assets/clip~11", "EXPORT_FEATURE_UNSUPPORTED /items/item-solid-1/type",
		"EXPORT_FEATURE_UNSUPPORTED /transitions/transition-1/type"}
	if !v.Data.Valid || !slices.Equal(codes(v.Meta.Warnings), want) {
		t.Fatalf("valid=%v errors=%v warnings=%v, want %v", v.Data.Valid, v.Data.Errors, v.Meta.Warnings, want)
	}
	if want := export.ErrFeatureUnsupported.String(); editor.CodeFeatureUnsupported != want {
		t.Fatalf("feature warnings have the code %s, export create refuses with %s", editor.CodeFeatureUnsupported, want)
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
	// The item types drawn are in meta: the interface closes data to other members.
	meta := r.JSON()["meta"].(map[string]any)
	if _, ok := d["itemTypes"]; ok || meta["itemTypes"] == nil {
		t.Fatalf("itemTypes not in meta alone: %s", r.Body)
	}
	has := func(list any, v string) bool {
		for _, x := range list.([]any) {
			if x == v {
				return true
			}
		}
		return false
	}
	if !has(d["transitions"], "flip") || !has(d["shapes"], "star") || !has(meta["itemTypes"], "lottie") {
		t.Fatalf("full renderer lacks flip/star/lottie: %s", r.Body)
	}
	// A renderer without flip and star does not advertise them, and the version changes.
	limited := editor.AllFeatures()
	limited.Transitions = without(limited.Transitions, "flip")
	limited.Shapes = without(limited.Shapes, "star")
	limited.ItemTypes = slices.DeleteFunc(slices.Clone(limited.ItemTypes), func(t editor.ItemType) bool { return t == editor.ItemLottie })
	e2 := newEnv(t, func(c *server.Config) { c.Features = limited })
	r2 := e2.do("GET", "/v1/editor/capabilities", e2.keyA, nil)
	d2, meta2 := r2.Data(), r2.JSON()["meta"].(map[string]any)
	if has(d2["transitions"], "flip") || has(d2["shapes"], "star") || has(meta2["itemTypes"], "lottie") || d2["version"] == d["version"] {
		t.Fatalf("limited capabilities: %s", r2.Body)
	}
	// Item types alone change the version too.
	e3 := newEnv(t, func(c *server.Config) {
		c.Features = editor.AllFeatures()
		c.Features.ItemTypes = limited.ItemTypes
	})
	if r3 := e3.do("GET", "/v1/editor/capabilities", e3.keyA, nil); r3.Data()["version"] == d["version"] {
		t.Fatalf("the version does not follow the item types: %s", r3.Body)
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
