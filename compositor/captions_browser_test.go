package compositor

import (
	"fmt"
	"html"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cutroom/cutroom/editor"
)

// browserFontFaces declares the embedded Noto Sans faces the text cases use.
func browserFontFaces(t testing.TB) string {
	t.Helper()
	var b strings.Builder
	for _, f := range []struct {
		file   string
		weight int
	}{{"NotoSans-Regular.ttf", 400}, {"NotoSans-SemiBold.ttf", 600}, {"NotoSans-Bold.ttf", 700}} {
		abs, err := filepath.Abs(filepath.Join("text", "fonts", f.file))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "@font-face{font-family:\"Noto Sans\";src:url(\"file://%s\");font-weight:%d;}\n", abs, f.weight)
	}
	return b.String()
}

// captionsHTML is the editor preview's DOM for a captions item at local tick lt: the
// current page as pre-wrapped text in the box, the spoken word in a span of the highlight
// colour (pagination and timing come from the renderer; TestPaginate* check them).
func captionsHTML(t testing.TB, it *editor.Item, lt, tbps int64, box string) string {
	t.Helper()
	ti := NewTextItems(sharedLibrary(t), nil)
	c := it.Captions
	st := ti.style(it, &c.TextStyle)
	w := it.Width.At(lt)
	pages, err := ti.captionPages(it, st, w)
	if err != nil {
		t.Fatal(err)
	}
	ms := captionTimeMs(lt, tbps, c)
	p := pageAt(pages, ms)
	if p == nil {
		return ""
	}
	inner := html.EscapeString(p.text)
	if hasCaptionAnimations(it.CaptionAnimations) {
		// one span per word with the animation's colour and visibility (the cases sent
		// here do not move words)
		ranges := wordRanges(p.text)
		words := make([]wordPaint, len(ranges))
		active := p.activeWord(ms)
		hc := ti.color(it, "highlightColor", c.HighlightColor, st.Color)
		for i, r := range ranges {
			words[i] = wordPaint{color: st.Color, scale: 1}
			if active >= 0 && r[0] >= p.words[active].start && r[1] <= p.words[active].end {
				words[i].color = hc
			}
		}
		animateWordPaints(it.CaptionAnimations, ms, p.startMs, p.endMs,
			func(d int64) float64 { return float64(d) * 1000 / float64(tbps) }, words, st.Size)
		var b strings.Builder
		prev := 0
		for i, r := range ranges {
			b.WriteString(html.EscapeString(p.text[prev:r[0]]))
			vis := "visible"
			if words[i].hidden {
				vis = "hidden"
			}
			col := words[i].color
			fmt.Fprintf(&b, `<span style="color:rgba(%d,%d,%d,%.4f);visibility:%s">%s</span>`, col.R, col.G, col.B,
				float64(col.A)/255*(1-words[i].fade), vis, html.EscapeString(p.text[r[0]:r[1]]))
			prev = r[1]
		}
		b.WriteString(html.EscapeString(p.text[prev:]))
		inner = b.String()
	} else if assetGranularity(it) != "line" {
		if i := p.activeWord(ms); i >= 0 {
			wd := p.words[i]
			inner = html.EscapeString(p.text[:wd.start]) + fmt.Sprintf(`<span style="color:%s">%s</span>`, c.HighlightColor,
				html.EscapeString(p.text[wd.start:wd.end])) + html.EscapeString(p.text[wd.end:])
		}
	}
	weight := c.FontStyle.Weight
	if weight == "" {
		weight = "400"
	}
	return fmt.Sprintf(`<div class="c" style="%sfont-family:'%s';font-weight:%s;font-size:%gpx;line-height:%g;letter-spacing:%gpx;`+
		`text-align:%s;direction:%s;color:%s;white-space:pre-wrap;overflow-wrap:break-word">%s</div>`,
		box, c.FontFamily, weight, c.FontSize, c.LineHeight, c.LetterSpacing, c.Align, c.Direction, c.Color, inner)
}
