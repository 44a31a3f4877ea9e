package editor

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"sort"
	"strconv"
	"strings"
)

// FeatureSet lists what a renderer can draw. Capabilities advertises only these, and
// UnsupportedFeatures names what a state uses beyond them. A nil slice means "none".
type FeatureSet struct {
	ItemTypes         []ItemType
	Animations        []string // animation types (fade, slide-up, ...)
	CaptionAnimations []string // caption animation types (converge, jitter, ...)
	Transitions       []string // transition types (fade, slide, ...)
	Effects           []string // effect types
	Filters           []string // filter types
	Shapes            []string // solid shapes
	ChartTypes        []ChartType
	// TemplateImages lists the text-template image node kinds drawn: "svg" (a built-in
	// illustration named by imageComponentId) and "lottie".
	TemplateImages   []string
	Backgrounds      []BackgroundType
	BackgroundImages []string // preset background image ids
}

// AllFeatures returns every feature editor state v1 defines: what a complete renderer
// supports. Its lists come from the embedded schema, so they follow it.
func AllFeatures() FeatureSet {
	return FeatureSet{
		ItemTypes:         AllItemTypes(),
		Animations:        schemaEnum("animationSpec", "type"),
		CaptionAnimations: schemaEnum("captionAnimationSpec", "type"),
		Transitions:       schemaEnum("transition", "type"),
		Effects:           effectTypes(),
		Filters:           filterTypes(),
		Shapes:            shapeTypes(),
		ChartTypes:        []ChartType{ChartLine, ChartBar, ChartArea, ChartPie, ChartRadar, ChartScatter},
		TemplateImages:    []string{"svg", "lottie"},
		Backgrounds:       []BackgroundType{BackgroundNone, BackgroundColor, BackgroundBlur, BackgroundImage},
		BackgroundImages:  backgroundImagePresets(),
	}
}

// itemTypeEnum returns the enum of an item type's member in the embedded schema. The item
// definitions are allOf [base, {properties}], so look one level down.
func itemTypeEnum(def, prop string) []string {
	var doc struct {
		Definitions map[string]struct {
			AllOf []struct {
				Properties map[string]struct {
					Enum []string `json:"enum"`
				} `json:"properties"`
			} `json:"allOf"`
		} `json:"definitions"`
	}
	if err := json.Unmarshal([]byte(schemaJSON), &doc); err != nil {
		return nil
	}
	for _, a := range doc.Definitions[def].AllOf {
		if e := a.Properties[prop].Enum; len(e) > 0 {
			return e
		}
	}
	return nil
}

func effectTypes() []string { return itemTypeEnum("effectItem", "effectType") }
func filterTypes() []string { return itemTypeEnum("filterItem", "filterType") }
func shapeTypes() []string  { return itemTypeEnum("solidItem", "shape") }

func has[T comparable](list []T, v T) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

func filter[T comparable](all, keep []T) []T {
	out := make([]T, 0, len(all))
	for _, x := range all {
		if has(keep, x) {
			out = append(out, x)
		}
	}
	return out
}

// CaptionAnimationPreset describes one caption animation for the editor's picker.
type CaptionAnimationPreset struct {
	ID      string `json:"id"`
	Type    string `json:"type"`
	Label   string `json:"label"`
	Preview string `json:"preview"` // a short description of the motion
}

// CaptionAnimationCatalog groups caption animations by where they apply.
type CaptionAnimationCatalog struct {
	In   []CaptionAnimationPreset `json:"in"`
	Out  []CaptionAnimationPreset `json:"out"`
	Loop []CaptionAnimationPreset `json:"loop"`
}

// TransitionPreset is a named transition type with default parameters.
type TransitionPreset struct {
	ID     string         `json:"id"`
	Type   string         `json:"type"`
	Label  string         `json:"label"`
	Params map[string]any `json:"params"`
}

// EffectPreset is a named effect or filter type with defaults for new items.
type EffectPreset struct {
	ID                       string         `json:"id"`
	Type                     string         `json:"type"`
	Label                    string         `json:"label"`
	DefaultDurationInSeconds float64        `json:"defaultDurationInSeconds"`
	DefaultIntensity         float64        `json:"defaultIntensity"`
	Params                   map[string]any `json:"params"`
}

// BackgroundPresets lists the global background choices the editor offers.
type BackgroundPresets struct {
	Colors     []string `json:"colors"`
	Gradients  []string `json:"gradients"` // CSS linear-gradient() strings
	Images     []string `json:"images"`    // preset image ids
	BlurLevels []int    `json:"blurLevels"`
}

// EditorCapabilities is the body of GET /v1/editor/capabilities (the interface's capabilities).
type EditorCapabilities struct {
	// Version is a hash of every list below; it changes whenever a list changes.
	Version string `json:"version"`
	// ItemTypes lists the item types this server draws (lottie among them when the
	// renderer draws it). The spec leaves the complete item-type enum to this route without
	// naming a member for it, and its OpenAPI file closes this object
	// (additionalProperties: false), so the route answers it in meta.itemTypes, not here.
	ItemTypes         []ItemType              `json:"-"`
	Animations        []string                `json:"animations"`
	CaptionAnimations CaptionAnimationCatalog `json:"captionAnimations"`
	Transitions       []string                `json:"transitions"`
	TransitionPresets []TransitionPreset      `json:"transitionPresets"`
	Effects           []string                `json:"effects"`
	EffectPresets     []EffectPreset          `json:"effectPresets"`
	Filters           []string                `json:"filters"`
	FilterPresets     []EffectPreset          `json:"filterPresets"`
	Shapes            []string                `json:"shapes"`
	BackgroundPresets BackgroundPresets       `json:"backgroundPresets"`
}

func label(id string) string {
	parts := strings.Split(id, "-")
	for i, p := range parts {
		if p != "" {
			parts[i] = strings.ToUpper(p[:1]) + p[1:]
		}
	}
	return strings.Join(parts, " ")
}

// captionAnimationPhase says where each caption animation applies and how it looks.
func captionAnimationPhase(t string) (phase, preview string) {
	switch t {
	case "converge":
		return "in", "Words slide in from both sides and meet in place."
	case "elastic-pop":
		return "in", "Each word pops up from nothing with an elastic overshoot."
	case "typewriter":
		return "in", "Letters appear one after another, as if typed."
	case "lay-down":
		return "in", "Words fall forward onto the line, one by one."
	case "center-type-out":
		return "out", "Letters disappear from the centre outwards."
	case "curtain-close":
		return "out", "The line is covered from both edges like a closing curtain."
	case "jitter":
		return "loop", "Words shake slightly while they are on screen."
	case "rainbow":
		return "loop", "The text colour cycles through the hues."
	case "sweep-shine":
		return "loop", "A highlight sweeps across the text repeatedly."
	}
	return "in", "Caption animation " + t + "."
}

func transitionPresets(types []string) []TransitionPreset {
	var out []TransitionPreset
	for _, t := range types {
		switch t {
		case "slide", "wipe":
			for _, d := range []string{"left", "right", "up", "down"} {
				out = append(out, TransitionPreset{ID: t + "-" + d, Type: t, Label: label(t) + " " + label(d), Params: map[string]any{"direction": d}})
			}
		case "flip":
			for _, d := range []string{"horizontal", "vertical"} {
				out = append(out, TransitionPreset{ID: t + "-" + d, Type: t, Label: label(t) + " " + label(d), Params: map[string]any{"direction": d}})
			}
		case "clock-wipe":
			for _, d := range []string{"clockwise", "counterclockwise"} {
				out = append(out, TransitionPreset{ID: t + "-" + d, Type: t, Label: label(t) + " " + label(d), Params: map[string]any{"direction": d}})
			}
		case "iris":
			for _, d := range []string{"open", "close"} {
				out = append(out, TransitionPreset{ID: t + "-" + d, Type: t, Label: label(t) + " " + label(d), Params: map[string]any{"direction": d}})
			}
		default:
			out = append(out, TransitionPreset{ID: t, Type: t, Label: label(t), Params: map[string]any{}})
		}
	}
	return out
}

func effectPresets(types []string) []EffectPreset {
	var out []EffectPreset
	for _, t := range types {
		p := EffectPreset{ID: t, Type: t, Label: label(t), DefaultDurationInSeconds: 1, DefaultIntensity: 1, Params: map[string]any{}}
		switch t {
		case "flash-to-black":
			p.DefaultDurationInSeconds = 0.5
		case "blur":
			p.DefaultDurationInSeconds = 2
			p.DefaultIntensity = 0.5
			p.Params = map[string]any{"radius": 12}
		case "blurred-opening":
			p.DefaultDurationInSeconds = 1.5
			p.Params = map[string]any{"radius": 24}
		}
		out = append(out, p)
	}
	return out
}

func filterPresets(types []string) []EffectPreset {
	var out []EffectPreset
	for _, t := range types {
		out = append(out, EffectPreset{ID: t, Type: t, Label: label(t), DefaultDurationInSeconds: 5, DefaultIntensity: 1, Params: map[string]any{"blend": 0.65}})
	}
	return out
}

func backgroundImagePresets() []string {
	return []string{"paper", "linen", "grid", "dots", "stripes", "waves", "bokeh", "sunset-sky"}
}

// Capabilities returns what the editor may use, restricted to what supported can render.
// Use AllFeatures() for a renderer that draws everything. Lists keep schema order.
func Capabilities(supported FeatureSet) EditorCapabilities {
	all := AllFeatures()
	c := EditorCapabilities{
		ItemTypes:   filter(all.ItemTypes, supported.ItemTypes),
		Animations:  filter(all.Animations, supported.Animations),
		Transitions: filter(all.Transitions, supported.Transitions),
		Effects:     filter(all.Effects, supported.Effects),
		Filters:     filter(all.Filters, supported.Filters),
		Shapes:      filter(all.Shapes, supported.Shapes),
		CaptionAnimations: CaptionAnimationCatalog{
			In: []CaptionAnimationPreset{}, Out: []CaptionAnimationPreset{}, Loop: []CaptionAnimationPreset{},
		},
		BackgroundPresets: BackgroundPresets{Colors: []string{}, Gradients: []string{}, Images: []string{}, BlurLevels: []int{}},
	}
	if !has(supported.ItemTypes, ItemSolid) {
		c.Shapes = []string{}
	}
	if !has(supported.ItemTypes, ItemEffect) {
		c.Effects = []string{}
	}
	if !has(supported.ItemTypes, ItemFilter) {
		c.Filters = []string{}
	}
	captionsOK := has(supported.ItemTypes, ItemText) || has(supported.ItemTypes, ItemCaptions)
	for _, t := range filter(all.CaptionAnimations, supported.CaptionAnimations) {
		if !captionsOK {
			break
		}
		phase, preview := captionAnimationPhase(t)
		p := CaptionAnimationPreset{ID: phase + "-" + t, Type: t, Label: label(t), Preview: preview}
		switch phase {
		case "in":
			c.CaptionAnimations.In = append(c.CaptionAnimations.In, p)
		case "out":
			c.CaptionAnimations.Out = append(c.CaptionAnimations.Out, p)
		default:
			c.CaptionAnimations.Loop = append(c.CaptionAnimations.Loop, p)
		}
	}
	c.TransitionPresets = transitionPresets(c.Transitions)
	c.EffectPresets = effectPresets(c.Effects)
	c.FilterPresets = filterPresets(c.Filters)
	if c.TransitionPresets == nil {
		c.TransitionPresets = []TransitionPreset{}
	}
	if c.EffectPresets == nil {
		c.EffectPresets = []EffectPreset{}
	}
	if c.FilterPresets == nil {
		c.FilterPresets = []EffectPreset{}
	}
	if has(supported.Backgrounds, BackgroundColor) {
		c.BackgroundPresets.Colors = []string{
			"#000000", "#ffffff", "#111827", "#1f2937", "#374151", "#6b7280", "#ef4444", "#f97316",
			"#f59e0b", "#eab308", "#84cc16", "#22c55e", "#14b8a6", "#06b6d4", "#3b82f6", "#6366f1",
			"#8b5cf6", "#a855f7", "#ec4899", "#f43f5e",
		}
		c.BackgroundPresets.Gradients = []string{
			"linear-gradient(135deg, #667eea 0%, #764ba2 100%)",
			"linear-gradient(135deg, #f093fb 0%, #f5576c 100%)",
			"linear-gradient(135deg, #4facfe 0%, #00f2fe 100%)",
			"linear-gradient(135deg, #43e97b 0%, #38f9d7 100%)",
			"linear-gradient(135deg, #fa709a 0%, #fee140 100%)",
			"linear-gradient(180deg, #30cfd0 0%, #330867 100%)",
			"linear-gradient(180deg, #a8edea 0%, #fed6e3 100%)",
			"linear-gradient(90deg, #ff9a9e 0%, #fecfef 100%)",
			"linear-gradient(45deg, #0f2027 0%, #203a43 50%, #2c5364 100%)",
			"linear-gradient(to right, #141e30, #243b55)",
		}
	}
	if has(supported.Backgrounds, BackgroundImage) {
		c.BackgroundPresets.Images = filter(all.BackgroundImages, supported.BackgroundImages)
	}
	if has(supported.Backgrounds, BackgroundBlur) {
		c.BackgroundPresets.BlurLevels = []int{0, 1, 2, 3, 4}
	}
	c.Version = capabilitiesVersion(c)
	return c
}

// capabilitiesVersion hashes every list of c, ItemTypes included, in the layout the body
// had when itemTypes was one of its members (after version), so versions did not change
// when it moved to meta.
func capabilitiesVersion(c EditorCapabilities) string {
	b, err := json.Marshal(struct {
		Version   string     `json:"version"`
		ItemTypes []ItemType `json:"itemTypes"`
		EditorCapabilities
	}{"", c.ItemTypes, c})
	if err != nil {
		return "v1"
	}
	sum := sha256.Sum256(b)
	return "v1-" + hex.EncodeToString(sum[:8])
}

// UnsupportedFeatures names every feature s uses that supported lacks, as "kind:name"
// strings (item:lottie, transition:flip, effect:blur, filter:lemon-cyan, animation:zoom-in,
// captionAnimation:jitter, shape:star, chart:radar, background:blur, templateImage:lottie),
// sorted and without duplicates. Names the server resolves (illustrations, background
// presets) are not features: ReferenceIssues reports those. Items in no track and items on
// tracks that are both hidden and muted are not rendered, so they are not counted.
// Export creation fails with EXPORT_FEATURE_UNSUPPORTED when the result is not empty.
func UnsupportedFeatures(s *State, supported FeatureSet) []string {
	if s == nil {
		return nil
	}
	seen := map[string]bool{}
	unsupportedUses(s, supported, func(kind, name string, _ ...string) { seen[kind+":"+name] = true })
	out := make([]string, 0, len(seen))
	for k := range seen {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// CodeFeatureUnsupported is the code of FeatureIssues: the code export create refuses such
// a state with (package export defines it as an API code).
const CodeFeatureUnsupported = "EXPORT_FEATURE_UNSUPPORTED"

// FeatureIssues reports every use in s of a feature supported lacks (the uses
// UnsupportedFeatures names), one issue per use with the JSON pointer of the member that
// names it (an item's type, an animation's type, a transition's type, ...) and
// CodeFeatureUnsupported, sorted like a Result's issues.
func FeatureIssues(s *State, supported FeatureSet) []Issue {
	var out []Issue
	unsupportedUses(s, supported, func(kind, name string, tokens ...string) {
		out = append(out, Issue{Code: CodeFeatureUnsupported, Path: pointer(tokens...),
			Message: "this server cannot render the " + kind + " " + strconv.Quote(name) + " (" + kind + ":" + name + ")"})
	})
	sortIssues(&out)
	return out
}

// unsupportedUses calls use for every use in s of a feature supported lacks, with the
// feature's kind and name and the JSON pointer tokens of the member naming it. Only what a
// render draws is visited: items listed in a track not both hidden and muted, the
// transitions and the background.
func unsupportedUses(s *State, supported FeatureSet, use func(kind, name string, tokens ...string)) {
	if s == nil {
		return
	}
	anim := func(a Animations, base ...string) {
		for i, x := range []*AnimationSpec{a.In, a.Out} {
			if x != nil && !has(supported.Animations, x.Type) {
				use("animation", x.Type, append(base, "animations", []string{"in", "out"}[i], "type")...)
			}
		}
	}
	canim := func(a CaptionAnimations, base ...string) {
		for i, x := range []*AnimationSpec{a.In, a.Out, a.Loop} {
			if x != nil && !has(supported.CaptionAnimations, x.Type) {
				use("captionAnimation", x.Type, append(base, "captionAnimations", []string{"in", "out", "loop"}[i], "type")...)
			}
		}
	}
	for it := range s.renderedItems() {
		if !has(supported.ItemTypes, it.Type) {
			use("item", string(it.Type), "items", it.ID, "type")
			continue
		}
		anim(it.Animations, "items", it.ID)
		canim(it.CaptionAnimations, "items", it.ID)
		switch {
		case it.Solid != nil && !has(supported.Shapes, it.Solid.Shape):
			use("shape", it.Solid.Shape, "items", it.ID, "shape")
		case it.Effect != nil && !has(supported.Effects, it.Effect.EffectType):
			use("effect", it.Effect.EffectType, "items", it.ID, "effectType")
		case it.Filter != nil && !has(supported.Filters, it.Filter.FilterType):
			use("filter", it.Filter.FilterType, "items", it.ID, "filterType")
		case it.Chart != nil && !has(supported.ChartTypes, it.Chart.ChartType):
			use("chart", string(it.Chart.ChartType), "items", it.ID, "chartType")
		case it.Template != nil:
			for i, n := range it.Template.Nodes {
				node := []string{"items", it.ID, "nodes", itoa(i)}
				anim(n.Animations, node...)
				canim(n.CaptionAnimations, node...)
				if n.Type == TemplateNodeImage && !has(supported.TemplateImages, n.ImageType) {
					use("templateImage", n.ImageType, append(node, "imageType")...)
				}
			}
		}
	}
	for _, k := range sortedKeys(s.Transitions) {
		if t := s.Transitions[k]; !has(supported.Transitions, t.Type) {
			use("transition", t.Type, "transitions", k, "type")
		}
	}
	if bg := s.GlobalBackground.Type; !has(supported.Backgrounds, bg) {
		use("background", string(bg), "globalBackground", "type")
	}
}
