package editor

import (
	"encoding/json"
	"reflect"
	"sort"
	"strings"
	"testing"
)

func TestCapabilitiesAll(t *testing.T) {
	c := Capabilities(AllFeatures())
	want := map[string][]string{
		"animations":  {"fade", "slide-up", "slide-down", "slide-left", "slide-right", "zoom-in", "zoom-out"},
		"transitions": {"fade", "slide", "wipe", "flip", "clock-wipe", "iris"},
		"effects":     {"flash-to-black", "blur", "blurred-opening", "fade-in", "fade-out"},
		"filters":     {"verdant-glow", "cyberpunk-neon", "vaporwave-blue", "sunset-orange", "lemon-cyan", "absolute-red", "sakura-pink", "twilight-dusk"},
		"shapes":      {"rectangle", "circle", "triangle", "star"},
	}
	got := map[string][]string{"animations": c.Animations, "transitions": c.Transitions, "effects": c.Effects, "filters": c.Filters, "shapes": c.Shapes}
	for k, w := range want {
		if !reflect.DeepEqual(got[k], w) {
			t.Errorf("%s = %v, want %v", k, got[k], w)
		}
	}
	var caption []string
	for _, group := range [][]CaptionAnimationPreset{c.CaptionAnimations.In, c.CaptionAnimations.Out, c.CaptionAnimations.Loop} {
		if len(group) == 0 {
			t.Errorf("empty caption animation group")
		}
		for _, p := range group {
			if p.ID == "" || p.Label == "" || p.Preview == "" {
				t.Errorf("incomplete caption preset %+v", p)
			}
			caption = append(caption, p.Type)
		}
	}
	sort.Strings(caption)
	wantCaption := schemaEnum("captionAnimationSpec", "type")
	sort.Strings(wantCaption)
	if !reflect.DeepEqual(caption, wantCaption) || len(caption) != 9 {
		t.Errorf("caption animations %v, want %v", caption, wantCaption)
	}
	types := map[string]bool{}
	for _, p := range c.TransitionPresets {
		types[p.Type] = true
		if p.Params == nil {
			t.Errorf("nil params in %+v", p)
		}
	}
	if len(types) != 6 {
		t.Errorf("transition presets cover %v", types)
	}
	if p := c.TransitionPresets[1]; p.Type != "slide" || p.Params["direction"] == nil {
		t.Errorf("slide preset without direction: %+v", p)
	}
	if len(c.EffectPresets) != 5 || len(c.FilterPresets) != 8 {
		t.Errorf("presets: %d effects, %d filters", len(c.EffectPresets), len(c.FilterPresets))
	}
	for _, p := range append(c.EffectPresets, c.FilterPresets...) {
		if p.DefaultDurationInSeconds <= 0 || p.DefaultIntensity <= 0 || p.Label == "" {
			t.Errorf("bad preset %+v", p)
		}
	}
	bp := c.BackgroundPresets
	if len(bp.Colors) == 0 || len(bp.Gradients) == 0 || len(bp.Images) == 0 || !reflect.DeepEqual(bp.BlurLevels, []int{0, 1, 2, 3, 4}) {
		t.Errorf("background presets %+v", bp)
	}
	for _, g := range bp.Gradients {
		if len(g) < 16 || g[:16] != "linear-gradient(" {
			t.Errorf("gradient %q", g)
		}
	}
	// The JSON has exactly the members of the interface's capabilities document (its
	// OpenAPI file closes the object; the route answers itemTypes in meta).
	b, _ := json.Marshal(c)
	var m map[string]json.RawMessage
	json.Unmarshal(b, &m)
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	wantKeys := []string{"animations", "backgroundPresets", "captionAnimations", "effectPresets", "effects", "filterPresets", "filters", "shapes", "transitionPresets", "transitions", "version"}
	if !reflect.DeepEqual(keys, wantKeys) {
		t.Errorf("keys %v", keys)
	}
}

func TestCapabilitiesVersionFollowsLists(t *testing.T) {
	all := Capabilities(AllFeatures())
	if again := Capabilities(AllFeatures()); again.Version != all.Version || all.Version == "" {
		t.Fatalf("version not stable: %q %q", all.Version, again.Version)
	}
	fs := AllFeatures()
	fs.Transitions = []string{"fade", "wipe"}
	less := Capabilities(fs)
	if less.Version == all.Version {
		t.Fatal("version did not change with the lists")
	}
	if !reflect.DeepEqual(less.Transitions, []string{"fade", "wipe"}) {
		t.Fatalf("transitions %v", less.Transitions)
	}
	for _, p := range less.TransitionPresets {
		if p.Type != "fade" && p.Type != "wipe" {
			t.Fatalf("preset for unsupported transition: %+v", p)
		}
	}
	none := Capabilities(FeatureSet{})
	b, _ := json.Marshal(none)
	if string(b) == "" || none.Animations == nil || none.CaptionAnimations.In == nil || none.BackgroundPresets.BlurLevels == nil {
		t.Fatalf("empty feature set must give empty lists, not nulls: %s", b)
	}
}

func TestUnsupportedFeatures(t *testing.T) {
	s := mustParseFile(t, "editor-state.valid.json")
	if got := UnsupportedFeatures(s, AllFeatures()); len(got) != 0 {
		t.Fatalf("all features: %v", got)
	}
	fs := withoutFeatures()
	got := UnsupportedFeatures(s, fs)
	want := []string{"animation:fade", "background:color", "item:effect", "item:text", "transition:fade"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	fs = AllFeatures()
	fs.CaptionAnimations = []string{"converge"}
	fs.Filters = []string{"lemon-cyan"}
	if got := UnsupportedFeatures(s, fs); !reflect.DeepEqual(got, []string{"captionAnimation:curtain-close", "captionAnimation:jitter", "filter:cyberpunk-neon"}) {
		t.Fatalf("got %v", got)
	}
	raw := `{"tracks":[{"id":"t","items":["i","s"],"hidden":false,"muted":false},{"id":"h","items":["c"],"hidden":true,"muted":true}],
	"items":{"i":{"id":"i","type":"illustration","illustrationName":"no-such-thing","startTicks":0,"durationTicks":10},
	"s":{"id":"s","type":"solid","shape":"star","startTicks":10,"durationTicks":10},
	"c":{"id":"c","type":"chart","chartType":"radar","startTicks":0,"durationTicks":10}},"assets":{},"transitions":{}}`
	st, err := Parse([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	fs = AllFeatures()
	fs.Shapes = []string{"rectangle"}
	fs.ChartTypes = nil
	if got := UnsupportedFeatures(st, fs); !reflect.DeepEqual(got, []string{"shape:star"}) {
		t.Fatalf("got %v (hidden+muted track must not count; names are ReferenceIssues')", got)
	}
	if is := ReferenceIssues(st, References{}); len(is) != 1 || is[0].Path != "/items/i/illustrationName" {
		t.Fatalf("reference issues %+v", is)
	}
}

// withoutFeatures is every feature but effect and text items, transitions, backgrounds
// other than none and animations: the valid example uses one of each.
func withoutFeatures() FeatureSet {
	fs := AllFeatures()
	fs.ItemTypes = []ItemType{ItemImage, ItemSolid, ItemFilter}
	fs.Transitions = nil
	fs.Backgrounds = []BackgroundType{BackgroundNone}
	fs.Animations = nil
	return fs
}

// TestFeatureIssues: each use of a feature the renderer lacks is an issue at the member
// naming it, with the code export create refuses with; the kinds and names are those of
// UnsupportedFeatures.
func TestFeatureIssues(t *testing.T) {
	s := mustParseFile(t, "editor-state.valid.json")
	if is := FeatureIssues(s, AllFeatures()); len(is) != 0 {
		t.Fatalf("all features: %+v", is)
	}
	fs := withoutFeatures()
	var got []string
	for _, is := range FeatureIssues(s, fs) {
		if is.Code != CodeFeatureUnsupported || is.Message == "" {
			t.Fatalf("issue %+v", is)
		}
		got = append(got, is.Path)
	}
	want := []string{"/globalBackground/type", "/items/item-effect-1/type", "/items/item-image-1/animations/in/type",
		"/items/item-text-1/type", "/transitions/transition-1/type"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("paths %v, want %v", got, want)
	}
	if is := FeatureIssues(s, fs); !strings.Contains(is[1].Message, `"effect"`) || !strings.Contains(is[1].Message, "item:effect") {
		t.Fatalf("message %q does not name the feature", is[1].Message)
	}
}

func TestUnsupportedTemplateImages(t *testing.T) {
	raw := `{"tracks":[{"id":"t","items":["x"],"hidden":false,"muted":false}],"assets":{},"transitions":{},
	"items":{"x":{"id":"x","type":"text-template","startTicks":0,"durationTicks":10,"nodes":[
	{"id":"a","type":"image","imageType":"svg","imageComponentId":"heart","x":0,"y":0,"width":10,"height":10,"opacity":1},
	{"id":"b","type":"image","imageType":"svg","imageComponentId":"component-hero-mark","x":0,"y":0,"width":10,"height":10,"opacity":1},
	{"id":"c","type":"image","imageType":"lottie","imageComponentId":null,"x":0,"y":0,"width":10,"height":10,"opacity":1}]}}}`
	st, err := Parse([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	if got := UnsupportedFeatures(st, AllFeatures()); len(got) != 0 {
		t.Fatalf("all features: %v", got)
	}
	fs := AllFeatures()
	fs.TemplateImages = []string{"svg"}
	if got := UnsupportedFeatures(st, fs); !reflect.DeepEqual(got, []string{"templateImage:lottie"}) {
		t.Fatalf("svg only: %v", got)
	}
	// Names are not features: ReferenceIssues reports the unknown one (not the built-in heart).
	if is := ReferenceIssues(st, References{}); len(is) != 1 || is[0].Path != "/items/x/nodes/1/imageComponentId" {
		t.Fatalf("reference issues %+v", is)
	}
}
