package server_test

import (
	"strings"
	"testing"

	"github.com/cutroom/cutroom/internal/svgtest"
)

const markSVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><path d="M0 0L9 0L9 9z"/></svg>`

// illustrationList returns GET /v1/illustrations?q= for key: data and meta.illustrations
// as "name/source" strings.
func illustrationList(t *testing.T, e *env, key, q string) (names, sources []string) {
	t.Helper()
	r := e.do("GET", "/v1/illustrations?q="+q, key, nil)
	if r.Status != 200 {
		t.Fatalf("illustrations: %d %s", r.Status, r.Body)
	}
	m := r.JSON()
	for _, n := range m["data"].([]any) {
		names = append(names, n.(string))
	}
	for _, h := range m["meta"].(map[string]any)["illustrations"].([]any) {
		h := h.(map[string]any)
		sources = append(sources, h["name"].(string)+"/"+h["source"].(string))
	}
	if len(names) != len(sources) {
		t.Fatalf("data and meta.illustrations differ: %v %v", names, sources)
	}
	return names, sources
}

// TestIllustrationUploads: an SVG uploaded with x-illustration-name becomes the
// workspace's illustration: listed by GET /v1/illustrations beside the built-in ones with
// its source, in search too; a second upload of the name replaces it (meta names the
// asset replaced); deleting its asset unregisters it. Bad names, built-in names, non-SVG
// bodies and SVGs over the budget register nothing. Workspace b sees none of a's.
func TestIllustrationUploads(t *testing.T) {
	e := newEnv(t)
	svg := "image/svg+xml"
	upload(e, e.keyA, "m.svg", svg, []byte(markSVG), "x-illustration-name", "bad name").Problem(400, "ILLUSTRATION_NAME_INVALID")
	upload(e, e.keyA, "m.svg", svg, []byte(markSVG), "x-illustration-name", "-dash").Problem(400, "ILLUSTRATION_NAME_INVALID")
	upload(e, e.keyA, "m.svg", svg, []byte(markSVG), "x-illustration-name", strings.Repeat("x", 65)).Problem(400, "ILLUSTRATION_NAME_INVALID")
	upload(e, e.keyA, "m.svg", svg, []byte(markSVG), "x-illustration-name", "").Problem(400, "ILLUSTRATION_NAME_INVALID")
	upload(e, e.keyA, "m.svg", svg, nil, "x-illustration-name", "brand-mark").Problem(400, "BODY_REQUIRED")
	upload(e, e.keyA, "m.svg", svg, []byte(markSVG), "x-illustration-name", "circle").Problem(409, "ILLUSTRATION_NAME_BUILTIN")
	upload(e, e.keyA, "m.png", "image/png", encodePNG(t, 4, 4), "x-illustration-name", "brand-mark").Problem(422, "ILLUSTRATION_NOT_SVG")
	complexity(t, upload(e, e.keyA, "m.svg", svg, svgtest.NestedUse(5, 10), "x-illustration-name", "brand-mark"), "svg.elements", 20_000)
	if _, src := illustrationList(t, e, e.keyA, "brand"); strings.Contains(strings.Join(src, " "), "/workspace") {
		t.Fatalf("a refused upload registered: %v", src)
	}

	r := upload(e, e.keyA, "m.svg", svg, []byte(markSVG), "x-illustration-name", "brand-mark")
	if r.Status != 201 {
		t.Fatalf("upload: %d %s", r.Status, r.Body)
	}
	first := r.Data()["assetId"].(string)
	il := r.JSON()["meta"].(map[string]any)["illustration"].(map[string]any)
	if il["name"] != "brand-mark" || il["source"] != "workspace" || il["replacedAssetId"] != nil {
		t.Fatalf("meta.illustration %v", il)
	}
	names, src := illustrationList(t, e, e.keyA, "brand")
	if len(names) == 0 || names[0] != "brand-mark" || src[0] != "brand-mark/workspace" {
		t.Fatalf("search brand: %v", src)
	}
	_, all := illustrationList(t, e, e.keyA, "")
	joined := " " + strings.Join(all, " ") + " "
	if !strings.Contains(joined, " brand-mark/workspace ") || !strings.Contains(joined, " circle/builtin ") {
		t.Fatalf("list: %v", all)
	}
	if _, src := illustrationList(t, e, e.keyB, ""); strings.Contains(strings.Join(src, " "), "brand-mark") {
		t.Fatalf("workspace b sees a's illustration: %v", src)
	}

	r = upload(e, e.keyA, "m2.svg", svg, []byte(markSVG), "x-illustration-name", "brand-mark")
	if r.Status != 201 || r.JSON()["meta"].(map[string]any)["illustration"].(map[string]any)["replacedAssetId"] != first {
		t.Fatalf("replace: %d %s", r.Status, r.Body)
	}
	second := r.Data()["assetId"].(string)
	// The replaced asset stays an ordinary asset; deleting it changes nothing.
	if r := e.do("DELETE", "/v1/assets/"+first, e.keyA, nil); r.Status != 200 {
		t.Fatalf("delete first: %d %s", r.Status, r.Body)
	}
	if _, src := illustrationList(t, e, e.keyA, "brand"); len(src) == 0 || src[0] != "brand-mark/workspace" {
		t.Fatalf("after deleting the replaced asset: %v", src)
	}
	if r := e.do("DELETE", "/v1/assets/"+second, e.keyA, nil); r.Status != 200 {
		t.Fatalf("delete second: %d %s", r.Status, r.Body)
	}
	if _, src := illustrationList(t, e, e.keyA, ""); strings.Contains(strings.Join(src, " "), "brand-mark") {
		t.Fatalf("still listed after its asset was deleted: %v", src)
	}
}

// TestValidateNamesIllustrations: the validate route warns of an illustration name that
// neither the library nor the workspace has, at its pointer and naming it (the state stays
// valid); a built-in name, or one the workspace uploaded, has no warning.
func TestValidateNamesIllustrations(t *testing.T) {
	e := newEnv(t)
	state := func(name string) string {
		return `{"compositionWidth":64,"compositionHeight":64,"timebaseTicksPerSecond":240000,
			"tracks":[{"id":"t","hidden":false,"muted":false,"items":["i"]}],"assets":{},
			"items":{"i":{"id":"i","type":"illustration","illustrationName":"` + name + `","color":"#ff0000","isDraggingInTimeline":false,"keepAspectRatio":true,"startTicks":0,"durationTicks":240000,
			"top":{"value":0,"keyframes":[]},"left":{"value":0,"keyframes":[]},"width":{"value":64,"keyframes":[]},"height":{"value":64,"keyframes":[]},
			"scaleX":{"value":1,"keyframes":[]},"scaleY":{"value":1,"keyframes":[]},"opacity":{"value":1,"keyframes":[]},"rotation":{"value":0,"keyframes":[]}}},
			"transitions":{},"deletedAssets":[]}`
	}
	// Unknown names do not make a state invalid: they are warnings.
	v := e.validate(e.keyA, state("brand-mark"))
	if !v.Data.Valid || len(v.Meta.Warnings) != 1 || v.Meta.Warnings[0].Code != "EDITOR_ILLUSTRATION_UNKNOWN" ||
		v.Meta.Warnings[0].Path != "/items/i/illustrationName" || !strings.Contains(v.Meta.Warnings[0].Message, `"brand-mark"`) {
		t.Fatalf("validate: %+v", v)
	}
	if v := e.validate(e.keyA, state("circle")); !v.Data.Valid || len(v.Meta.Warnings) != 0 {
		t.Fatalf("validate circle: %+v", v)
	}
	if r := upload(e, e.keyA, "m.svg", "image/svg+xml", []byte(markSVG), "x-illustration-name", "brand-mark"); r.Status != 201 {
		t.Fatalf("upload: %d %s", r.Status, r.Body)
	}
	if v := e.validate(e.keyA, state("brand-mark")); !v.Data.Valid || len(v.Meta.Warnings) != 0 {
		t.Fatalf("validate after the upload: %+v", v)
	}
	if v := e.validate(e.keyB, state("brand-mark")); !v.Data.Valid || len(v.Meta.Warnings) != 1 {
		t.Fatalf("validate in workspace b: %+v", v)
	}
}
