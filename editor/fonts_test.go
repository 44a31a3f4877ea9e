package editor

import (
	"reflect"
	"strings"
	"testing"
)

// TestFontIssues: every fontFamily a render draws (text items, captions items, template
// text nodes) is checked at its pointer, as a browser resolves a font-family list; a state
// whose families exist has none; hidden and muted tracks draw nothing.
func TestFontIssues(t *testing.T) {
	none := func(string) bool { return false }
	for file, path := range map[string]string{
		"editor-state.valid.json":               "/items/item-text-1/fontFamily",
		"editor-state.valid.caption.json":       "/items/item-caption-1/fontFamily",
		"editor-state.valid.text-template.json": "/items/item-template-1/nodes/1/fontFamily",
	} {
		st := mustParseFile(t, file)
		is := FontIssues(st, none)
		if len(is) != 1 || is[0].Code != CodeFontMissing || is[0].Path != path || !strings.Contains(is[0].Message, `"TikTok Sans"`) {
			t.Errorf("%s: %+v", file, is)
		}
		if is := FontIssues(st, func(f string) bool { return f == "TikTok Sans" }); len(is) != 0 {
			t.Errorf("%s: a provided family reported: %+v", file, is)
		}
		for i := range st.Tracks {
			st.Tracks[i].Hidden, st.Tracks[i].Muted = true, true
		}
		if is := FontIssues(st, none); len(is) != 0 {
			t.Errorf("%s: hidden and muted tracks reported: %+v", file, is)
		}
	}
	if APICode(CodeFontMissing).String() != CodeFontMissing {
		t.Fatal("EXPORT_FONT_MISSING is not an API code")
	}
}

func TestParseFontFamilies(t *testing.T) {
	got := ParseFontFamilies(` "TikTok Sans" ,Inter,  Noto   Sans  , 'serif', SANS-SERIF, , system-ui `)
	want := []FontFamily{{"TikTok Sans", false}, {"Inter", false}, {"Noto Sans", false}, {"serif", false},
		{"SANS-SERIF", true}, {"system-ui", true}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v", got)
	}
	if got := ParseFontFamilies(" , "); len(got) != 0 {
		t.Fatalf("empty list: %+v", got)
	}
}

// TestFontIssuesAsksOncePerName: a family named by many members is looked up once (a miss
// may cost the caller a database read), and every member naming it is reported.
func TestFontIssuesAsksOncePerName(t *testing.T) {
	st := mustParseFile(t, "editor-state.valid.text-template.json")
	var text TemplateNode
	for _, it := range st.Items {
		if it.Template == nil {
			continue
		}
		for _, n := range it.Template.Nodes {
			if n.Type == TemplateNodeText {
				text = n
			}
		}
		it.Template.Nodes = append(it.Template.Nodes, text, text)
	}
	asked := map[string]int{}
	is := FontIssues(st, func(f string) bool { asked[f]++; return false })
	if len(is) != 3 || len(asked) != 1 || asked[text.Style.FontFamily] != 1 {
		t.Fatalf("issues %+v, asked %v: want three issues and one question", is, asked)
	}
}
