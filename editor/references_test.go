package editor

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// TestReferenceIssues: an illustration name neither built in nor the workspace's is
// reported at its pointer, naming it (illustration items and svg template nodes); a
// background image that names no preset is reported when References.Background cannot
// read it, and never when it names a preset.
func TestReferenceIssues(t *testing.T) {
	st := mustParseFile(t, "editor-state.valid.text-template.json")
	is := ReferenceIssues(st, References{})
	want := []Issue{{Code: CodeIllustrationUnknown, Path: "/items/item-template-1/nodes/0/imageComponentId"}}
	if len(is) != 1 || is[0].Code != want[0].Code || is[0].Path != want[0].Path || !strings.Contains(is[0].Message, `"component-hero-mark"`) {
		t.Fatalf("unregistered: %+v", is)
	}
	own := References{Illustration: func(n string) bool { return n == "component-hero-mark" }}
	if is := ReferenceIssues(st, own); len(is) != 0 {
		t.Fatalf("registered: %+v", is)
	}
	if APICode(CodeIllustrationUnknown).String() != CodeIllustrationUnknown || APICode(CodeBackgroundPresetUnknown).String() != CodeBackgroundPresetUnknown {
		t.Fatal("reference codes are not API codes")
	}

	rt := mustParseFile(t, "editor-state.valid.runtime.json") // a "preset" background at https://example.com/background.jpg
	if is := ReferenceIssues(rt, References{}); len(is) != 0 {
		t.Fatalf("background unchecked: %+v", is)
	}
	refuse := References{Background: func(string) error { return errors.New("fetching remote assets is off") }}
	is = ReferenceIssues(rt, refuse)
	if len(is) != 1 || is[0].Code != CodeBackgroundPresetUnknown || is[0].Path != "/globalBackground/imageUrl" ||
		!strings.Contains(is[0].Message, "https://example.com/background.jpg") || !strings.Contains(is[0].Message, "fetching remote assets is off") {
		t.Fatalf("background refused: %+v", is)
	}
	for _, u := range []string{"paper", "preset://sunset-sky", "/presets/grid.png"} {
		rt.GlobalBackground.ImageURL = u
		if is := ReferenceIssues(rt, refuse); len(is) != 0 {
			t.Fatalf("preset %q: %+v", u, is)
		}
	}
	// Reference issues are warnings: the result stays valid and its JSON is unchanged.
	warn := ReferenceIssues(st, References{})
	r := Result{Valid: true, Errors: []Issue{}}.WithWarnings(warn...)
	if !r.Valid || len(r.Errors) != 0 || !reflect.DeepEqual(r.Warnings, warn) {
		t.Fatalf("WithWarnings: %+v", r)
	}
	if b, _ := json.Marshal(r); string(b) != `{"valid":true,"errors":[]}` {
		t.Fatalf("JSON of a result with warnings: %s", b)
	}
	// A warning at or inside a member an error names is left out; one beside it is kept.
	bad := Result{Errors: []Issue{{Code: CodeTransitionTypeInvalid, Path: "/transitions/t"}, {Code: CodeSchemaInvalid, Path: ""}}}
	if got := bad.WithWarnings(warn...).Warnings; len(got) != 0 {
		t.Fatalf("warnings inside the whole state's error: %+v", got)
	}
	bad.Errors = bad.Errors[:1]
	at := Issue{Code: CodeFeatureUnsupported, Path: "/transitions/t/type"}
	beside := Issue{Code: CodeFeatureUnsupported, Path: "/transitions/t2/type"}
	if got := bad.WithWarnings(at, beside).Warnings; !reflect.DeepEqual(got, []Issue{beside}) {
		t.Fatalf("warnings %+v, want only %+v", got, beside)
	}
}
