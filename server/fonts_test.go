package server_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/cutroom/cutroom/compositor/text"
	"github.com/cutroom/cutroom/export"
	"github.com/cutroom/cutroom/server"
)

// libraryFamilies lists lib's families for GET /v1/fonts as the App does (its faces of
// directories all as the data dir's).
func libraryFamilies(lib *text.Library) func() []server.FontFamily {
	return func() []server.FontFamily {
		var out []server.FontFamily
		for _, fi := range lib.FamilyInfos() {
			f := server.FontFamily{Family: fi.Family, Weights: fi.Weights(), Styles: fi.Styles()}
			for _, src := range fi.Sources() {
				name := string(src)
				if src == text.SourceDir {
					name = server.FontSourceDataDir
				}
				f.Sources = append(f.Sources, name)
			}
			f.Source = f.Sources[0]
			out = append(out, f)
		}
		return out
	}
}

// TestFontsRouteAnswers: GET /v1/fonts answers the library's families in the shape
// openapi.json describes (the harness checks every answer against it), for any valid key
// (runtime access not needed), and 401 without one.
func TestFontsRouteAnswers(t *testing.T) {
	e := newEnv(t)
	r := e.do("GET", "/v1/fonts", e.keyOff, nil)
	if r.Status != 200 {
		t.Fatalf("GET /v1/fonts: %d %s", r.Status, r.Body)
	}
	var body struct {
		Data []server.FontFamily `json:"data"`
	}
	if err := json.Unmarshal(r.Body, &body); err != nil || len(body.Data) != len(e.fonts.Families()) {
		t.Fatalf("families: %v %s", err, r.Body)
	}
	e.do("GET", "/v1/fonts", "", nil).Problem(401, "OPEN_API_KEY_INVALID")
}

// textState is solidState with a text item "x1" naming fontFamily family, in a second track.
func textState(t *testing.T, family string) string {
	t.Helper()
	var st map[string]any
	if err := json.Unmarshal([]byte(solidState(640, 360, 1)), &st); err != nil {
		t.Fatal(err)
	}
	var item map[string]any
	if err := json.Unmarshal([]byte(`{"id":"x1","type":"text","text":"Hello","color":"#ffffff","align":"center",
		"fontStyle":{"variant":"normal","weight":"400"},"fontSize":40,"lineHeight":1.2,"letterSpacing":0,
		"resizeOnEdit":false,"direction":"ltr","strokeWidth":0,"strokeColor":"#000000","background":null,
		"startTicks":0,"durationTicks":240000,"left":{"value":0,"keyframes":[]},"top":{"value":0,"keyframes":[]},
		"width":{"value":600,"keyframes":[]},"height":{"value":100,"keyframes":[]},"scaleX":{"value":1,"keyframes":[]},
		"scaleY":{"value":1,"keyframes":[]},"opacity":{"value":1,"keyframes":[]},"rotation":{"value":0,"keyframes":[]},
		"isDraggingInTimeline":false}`), &item); err != nil {
		t.Fatal(err)
	}
	item["fontFamily"] = family
	st["items"].(map[string]any)["x1"] = item
	st["tracks"] = append([]any{map[string]any{"id": "t0", "items": []string{"x1"}, "hidden": false, "muted": false}}, st["tracks"].([]any)...)
	b, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestValidateWarnsOfMissingFonts: a fontFamily no font of the server provides is a
// warning of validate (EXPORT_FONT_MISSING at the member, naming the family), never an
// error; a list resolves as a browser resolves it (the first available family, a generic
// family always), and families match without case.
func TestValidateWarnsOfMissingFonts(t *testing.T) {
	e := newEnv(t)
	for family, missing := range map[string]bool{
		"Nowhere Grotesk":                    true,
		`"Nowhere Grotesk", 'Other Missing'`: true,
		"Nowhere Grotesk, sans-serif":        false,
		"Nowhere Grotesk, NOTO SERIF":        false,
		"noto sans mono":                     false,
		"cursive":                            false,
		"":                                   false,
	} {
		v := e.validate(e.keyA, textState(t, family))
		if !v.Data.Valid || len(v.Data.Errors) != 0 {
			t.Fatalf("%q: a missing font made the state invalid: %+v", family, v.Data)
		}
		var got []string
		for _, w := range v.Meta.Warnings {
			if w.Code == "EXPORT_FONT_MISSING" {
				got = append(got, w.Path)
				if !strings.Contains(w.Message, `"Nowhere Grotesk"`) {
					t.Errorf("%q: the warning does not name the family: %s", family, w.Message)
				}
			}
		}
		if missing && (len(got) != 1 || got[0] != "/items/x1/fontFamily") {
			t.Errorf("%q: warnings %v, want EXPORT_FONT_MISSING at /items/x1/fontFamily", family, codes(v.Meta.Warnings))
		}
		if !missing && len(got) != 0 {
			t.Errorf("%q: warned of a provided family: %v", family, codes(v.Meta.Warnings))
		}
	}
}

// TestExportMissingFonts: with the default policy a task whose state names a family no font
// provides is created and rendered, with the warning on the task (stored: the same after
// the render); with MissingFontsRefuse create answers 422 EXPORT_FONT_MISSING naming the
// family at the member, and stores nothing.
func TestExportMissingFonts(t *testing.T) {
	hasFFprobe(t)
	have := func(f string) bool { return strings.EqualFold(f, "Inter") }
	for _, policy := range []string{"", export.MissingFontsWarn} {
		e := newExportEnv(t, exportOpts{fonts: have, missingFonts: policy})
		r := e.do("POST", "/v1/exports", e.keyA, exportBody(textState(t, "Nowhere Grotesk"), "ratio", "custom"))
		if r.Status != 201 {
			t.Fatalf("%q: create: %d %s", policy, r.Status, r.Body)
		}
		id := r.Data()["taskId"].(string)
		task := e.waitTask(e.keyA, id, 60*time.Second, statusIs("COMPLETED", "FAILED"))
		ws, _ := task["warnings"].([]any)
		if task["status"] != "COMPLETED" || len(ws) != 1 {
			t.Fatalf("%q: task %v", policy, task)
		}
		w := ws[0].(map[string]any)
		if w["code"] != "EXPORT_FONT_MISSING" || w["path"] != "/items/x1/fontFamily" || !strings.Contains(w["message"].(string), `"Nowhere Grotesk"`) {
			t.Fatalf("%q: warning %v", policy, w)
		}
		// a provided family: no warning, an empty list
		r = e.do("POST", "/v1/exports", e.keyA, exportBody(textState(t, "Nowhere, inter"), "ratio", "custom"))
		if r.Status != 201 {
			t.Fatalf("create: %d %s", r.Status, r.Body)
		}
		task = e.waitTask(e.keyA, r.Data()["taskId"].(string), 60*time.Second, statusIs("COMPLETED", "FAILED"))
		if ws, ok := task["warnings"].([]any); !ok || len(ws) != 0 {
			t.Fatalf("a provided family: warnings %v", task["warnings"])
		}
	}
	e := newExportEnv(t, exportOpts{fonts: have, missingFonts: export.MissingFontsRefuse})
	p := e.do("POST", "/v1/exports", e.keyA, exportBody(textState(t, "Nowhere Grotesk, Other"), "ratio", "custom")).Problem(422, "EXPORT_FONT_MISSING")
	if p["field"] != "editorState/items/x1/fontFamily" || !strings.Contains(p["detail"].(string), `"Nowhere Grotesk", "Other"`) {
		t.Fatalf("refusal %v", p)
	}
	if errs, _ := p["errors"].([]any); len(errs) != 1 {
		t.Fatalf("refusal errors %v", p["errors"])
	}
	if list := e.do("GET", "/v1/exports", e.keyA, nil).JSON()["data"].([]any); len(list) != 0 {
		t.Fatalf("a refused export was stored: %v", list)
	}
	if r := e.do("POST", "/v1/exports", e.keyA, exportBody(textState(t, "Inter"), "ratio", "custom")); r.Status != 201 {
		t.Fatalf("a provided family refused: %d %s", r.Status, r.Body)
	}
}
