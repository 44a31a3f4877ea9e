package editor

import (
	"strconv"
	"strings"
)

// CodeFontMissing: a text item, captions item or template text node names font families
// (a CSS font-family list) of which none is a generic family or one a font of the server
// provides. The validate route lists it in warnings; export create records it as the
// task's warnings and draws the fallback font, or refuses the state with it when the
// operator asked so (serve --missing-fonts=refuse).
const CodeFontMissing = "EXPORT_FONT_MISSING"

// FontFamily is one name of a CSS font-family list.
type FontFamily struct {
	Name string
	// Generic is true for a CSS generic family (sans-serif, serif, monospace, system-ui...)
	// written without quotes: every server provides those.
	Generic bool
}

// genericFamilies are CSS Fonts 4's generic family names.
var genericFamilies = []string{"serif", "sans-serif", "monospace", "cursive", "fantasy", "system-ui", "ui-serif",
	"ui-sans-serif", "ui-monospace", "ui-rounded", "emoji", "math", "fangsong"}

// ParseFontFamilies splits a CSS font-family value into its names, as a browser reads it:
// comma-separated entries, each a quoted string (never generic) or identifiers separated by
// white space (a generic family name when it is one, compared without case); runs of white
// space in a name are one space, as the font library compares names. Empty entries are
// dropped.
func ParseFontFamilies(value string) []FontFamily {
	var out []FontFamily
	for _, part := range strings.Split(value, ",") {
		p := strings.TrimSpace(part)
		if len(p) >= 2 && (p[0] == '"' || p[0] == '\'') && p[len(p)-1] == p[0] {
			if name := strings.Join(strings.Fields(p[1:len(p)-1]), " "); name != "" {
				out = append(out, FontFamily{Name: name})
			}
			continue
		}
		name := strings.Join(strings.Fields(p), " ")
		if name == "" {
			continue
		}
		generic := false
		for _, g := range genericFamilies {
			generic = generic || strings.EqualFold(name, g)
		}
		out = append(out, FontFamily{Name: name, Generic: generic})
	}
	return out
}

// FontUse is one place a state names font families.
type FontUse struct {
	// Path is the JSON pointer of the fontFamily member.
	Path string
	// Value is the member as written (a CSS font-family list).
	Value string
}

// FontUses returns every fontFamily of what a render draws (text items, captions items,
// template text nodes, on tracks not both hidden and muted), in item order.
func FontUses(s *State) []FontUse {
	if s == nil {
		return nil
	}
	var out []FontUse
	for it := range s.renderedItems() {
		switch {
		case it.Text != nil:
			out = append(out, FontUse{pointer("items", it.ID, "fontFamily"), it.Text.FontFamily})
		case it.Captions != nil:
			out = append(out, FontUse{pointer("items", it.ID, "fontFamily"), it.Captions.FontFamily})
		case it.Template != nil:
			for i, n := range it.Template.Nodes {
				if n.Type == TemplateNodeText {
					out = append(out, FontUse{pointer("items", it.ID, "nodes", strconv.Itoa(i), "fontFamily"), n.Style.FontFamily})
				}
			}
		}
	}
	return out
}

// FontIssues reports each fontFamily of s (FontUses) that no font provides, as a browser
// resolves a font-family list: the first name that is available is drawn, so a list is
// provided when one of its names is a generic family or one has reports true for; an empty
// value draws the default family. Issues carry CodeFontMissing, the member's pointer and a
// message naming the families, sorted like a Result's. has is asked once per name (a
// miss may cost the caller a look in its database).
func FontIssues(s *State, has func(family string) bool) []Issue {
	var out []Issue
	known := map[string]bool{}
	provides := func(name string) bool {
		v, ok := known[name]
		if !ok {
			v = has(name)
			known[name] = v
		}
		return v
	}
	for _, u := range FontUses(s) {
		fams := ParseFontFamilies(u.Value)
		if len(fams) == 0 {
			continue
		}
		provided := false
		names := make([]string, len(fams))
		for i, f := range fams {
			provided = provided || f.Generic || provides(f.Name)
			names[i] = strconv.Quote(f.Name)
		}
		if provided {
			continue
		}
		what := "the font family " + names[0]
		if len(names) > 1 {
			what = "any of the font families " + strings.Join(names, ", ")
		}
		out = append(out, Issue{Code: CodeFontMissing, Path: u.Path,
			Message: "no font of this server provides " + what + ": the text would be drawn with the fallback font (install the family with `cutroom fonts add`, upload its font file, or name an available family; GET /v1/fonts lists them)"})
	}
	sortIssues(&out)
	return out
}
