package editor

import (
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/cutroom/cutroom/apierr"
	"github.com/cutroom/cutroom/illustrations"
)

// Codes of the reference rules: names in a state that only the server rendering it can
// resolve (ReferenceIssues). They are not semantic rules: Validate, which knows no
// workspace, does not report them; the validate route reports them as warnings (a state
// it cannot render may be valid) and export create refuses with them.
const (
	// CodeIllustrationUnknown: an illustration item's illustrationName, or an svg template
	// image node's imageComponentId, names neither a built-in illustration nor one of the
	// workspace's own.
	CodeIllustrationUnknown = "EDITOR_ILLUSTRATION_UNKNOWN"
	// CodeBackgroundPresetUnknown: an image background without imageAssetId whose imageUrl
	// names no background preset image (BackgroundPresetID) and is no image the server can
	// read (References.Background).
	CodeBackgroundPresetUnknown = "EDITOR_BACKGROUND_PRESET_UNKNOWN"
)

// referenceCodes are the codes above as API codes (see APICode).
var referenceCodes = []apierr.Code{
	apierr.Define(apierr.Unprocessable, "EDITOR_ILLUSTRATION_UNKNOWN"),
	apierr.Define(apierr.Unprocessable, "EDITOR_BACKGROUND_PRESET_UNKNOWN"),
	apierr.Define(apierr.Unprocessable, "EXPORT_FONT_MISSING"),
}

// References is what a server resolves names of a state against; nil funcs mean nothing
// beyond the built-in sets.
type References struct {
	// Illustration reports whether the workspace has an illustration of its own of that
	// name (besides the built-in library, which is always known).
	Illustration func(name string) bool
	// Background reports why an image background's imageUrl that names no preset cannot
	// be read for the render (nil: it can): a file the server has, or a remote URL its
	// fetch policy allows. Nil Background checks nothing (the caller cannot tell).
	Background func(url string) error
}

// BackgroundPresetID returns the background preset image id an imageUrl names, or "" when
// it names none: the id itself, or any URL or path whose last element without extension is
// an id of EditorCapabilities.BackgroundPresets.Images ("preset://paper",
// "/presets/paper.png").
func BackgroundPresetID(url string) string {
	u := strings.TrimSpace(url)
	if i := strings.Index(u, "://"); i >= 0 {
		u = u[i+3:]
	}
	base := path.Base(u)
	base = strings.TrimSuffix(base, path.Ext(base))
	if slices.Contains(backgroundImagePresets(), base) {
		return base
	}
	return ""
}

// ReferenceIssues reports the names of s that neither the built-in sets nor refs resolve,
// as issues with a JSON pointer to the member and a message naming the name, sorted like
// a Result's. Only what a render draws is checked: items listed in a track, not on tracks
// both hidden and muted, and the background.
func ReferenceIssues(s *State, refs References) []Issue {
	if s == nil {
		return nil
	}
	var out []Issue
	known := func(name string) bool {
		if _, ok := illustrations.ByName(name); ok {
			return true
		}
		return refs.Illustration != nil && refs.Illustration(name)
	}
	unknown := func(name string, tokens ...string) {
		out = append(out, Issue{Code: CodeIllustrationUnknown, Path: pointer(tokens...),
			Message: "illustration " + strconv.Quote(name) + " is neither built in nor one of this workspace's illustrations (upload its SVG with the x-illustration-name header)"})
	}
	for it := range s.renderedItems() {
		if il := it.Illustration; il != nil && !known(il.Name) {
			unknown(il.Name, "items", it.ID, "illustrationName")
		}
		if tp := it.Template; tp != nil {
			for i, n := range tp.Nodes {
				if n.Type == TemplateNodeImage && n.ImageType == "svg" && n.ImageComponentID != "" && !known(n.ImageComponentID) {
					unknown(n.ImageComponentID, "items", it.ID, "nodes", strconv.Itoa(i), "imageComponentId")
				}
			}
		}
	}
	if is, ok := backgroundIssue(s.GlobalBackground, refs.Background); !ok {
		out = append(out, is)
	}
	sortIssues(&out)
	return out
}

// backgroundIssue checks an image background without an asset: its imageUrl must name a
// preset, or be an image background (when set) can read.
func backgroundIssue(b Background, background func(string) error) (Issue, bool) {
	if b.Type != BackgroundImage || b.ImageAssetID != "" || BackgroundPresetID(b.ImageURL) != "" || background == nil {
		return Issue{}, true
	}
	u := strings.TrimSpace(b.ImageURL)
	err := background(u)
	if err == nil {
		return Issue{}, true
	}
	return Issue{Code: CodeBackgroundPresetUnknown, Path: pointer("globalBackground", "imageUrl"),
		Message: "background image " + strconv.Quote(u) + " names no preset (" + strings.Join(backgroundImagePresets(), ", ") +
			") and cannot be read: " + err.Error()}, false
}

// WithWarnings returns r with more warnings (sorted in, duplicates removed). Warnings do
// not change Valid. A warning about a member an error names, or about a member inside it,
// is left out: the error says more (a transition type the schema does not allow is not
// also a feature the renderer lacks).
func (r Result) WithWarnings(more ...Issue) Result {
	w := append(slices.Clone(r.Warnings), more...)
	if len(r.Errors) > 0 {
		erred := make(map[string]bool, len(r.Errors))
		for _, e := range r.Errors {
			erred[e.Path] = true
		}
		w = slices.DeleteFunc(w, func(is Issue) bool {
			for p := is.Path; ; {
				if erred[p] {
					return true
				}
				i := strings.LastIndexByte(p, '/')
				if i < 0 {
					return false
				}
				p = p[:i]
			}
		})
	}
	sortIssues(&w)
	if w == nil {
		w = []Issue{}
	}
	r.Warnings = w
	return r
}
