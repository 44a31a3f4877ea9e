package compositor

import (
	"fmt"
	"html"
	"image"
	"image/color"
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

// templateHTML is the preview DOM of a text-template item's nodes at local tick lt: each
// node a positioned box (text: pre-wrapped text; svg: the library illustration in white),
// its animations as their state at lt (scale about the node box centre, translate, opacity).
func templateHTML(t testing.TB, it *editor.Item, lt int64, box string) string {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, `<div class="c" style="%s">`, box)
	bw, bh := it.Width.At(lt), it.Height.At(lt)
	for i := range it.Template.Nodes {
		n := &it.Template.Nodes[i]
		an := nodeAnimationAt(n, lt, it.DurationTicks, bw, bh)
		op := an.opacity
		if n.Type == editor.TemplateNodeImage {
			op *= n.Opacity
		}
		pos := fmt.Sprintf("position:absolute;left:%gpx;top:%gpx;width:%gpx;height:%gpx;opacity:%.4f;transform:translate(%.4fpx,%.4fpx) scale(%.6f);",
			n.X, n.Y, n.Width, n.Height, op, an.tx, an.ty, an.zoom)
		switch n.Type {
		case editor.TemplateNodeText:
			s := n.Style
			weight := s.FontStyle.Weight
			if weight == "" {
				weight = "400"
			}
			fmt.Fprintf(&b, `<div style="%sfont-family:'%s';font-weight:%s;font-size:%gpx;line-height:%g;letter-spacing:%gpx;`+
				`text-align:%s;direction:%s;color:%s;white-space:pre-wrap;overflow-wrap:break-word">%s</div>`,
				pos, s.FontFamily, weight, s.FontSize, s.LineHeight, s.LetterSpacing, s.Align, s.Direction, s.Color, html.EscapeString(n.Text))
		case editor.TemplateNodeImage:
			svg, ok := LibraryIllustrations(n.ImageComponentID)
			if !ok {
				t.Fatalf("no illustration %q", n.ImageComponentID)
			}
			b.WriteString(strings.Replace(string(svg), "<svg ", fmt.Sprintf(`<svg width="%g" height="%g" style="%scolor:#fff" `, n.Width, n.Height, pos), 1))
		}
	}
	b.WriteString(`</div>`)
	return b.String()
}

// chartSVG records a chart's operations as preview DOM: each fill an SVG path (non-zero
// rule) over the box, each label an absolutely positioned line of text, in drawing order.
type chartSVG struct {
	w, h float64
	b    strings.Builder
}

func (r *chartSVG) recordFill(polys [][][2]float64, c color.NRGBA) {
	fmt.Fprintf(&r.b, `<svg width="%g" height="%g" viewBox="0 0 %g %g" style="position:absolute;left:0;top:0;overflow:visible"><path fill-rule="nonzero" fill="rgba(%d,%d,%d,%.4f)" d="`,
		r.w, r.h, r.w, r.h, c.R, c.G, c.B, float64(c.A)/255)
	for _, p := range polys {
		for i, q := range p {
			cmd := "L"
			if i == 0 {
				cmd = "M"
			}
			fmt.Fprintf(&r.b, "%s%.3f %.3f", cmd, q[0], q[1])
		}
		r.b.WriteString("Z")
	}
	r.b.WriteString(`"/></svg>`)
}

func (r *chartSVG) recordLabel(s string, x, y, size float64, c color.NRGBA, align string) {
	tx := "0"
	switch align {
	case "center":
		tx = "-50%"
	case "right":
		tx = "-100%"
	}
	fmt.Fprintf(&r.b, `<div style="position:absolute;left:%.3fpx;top:%.3fpx;transform:translate(%s,-50%%);white-space:pre;font-family:'Noto Sans';font-size:%gpx;line-height:1.2;color:rgba(%d,%d,%d,%.4f)">%s</div>`,
		x, y, tx, size, c.R, c.G, c.B, float64(c.A)/255, html.EscapeString(s))
}

// chartHTML is a chart item's box as preview DOM at local tick lt.
func chartHTML(t testing.TB, it *editor.Item, lt int64, box string) string {
	t.Helper()
	w, h := it.Width.At(lt), it.Height.At(lt)
	theme, err := ParseColor(it.Chart.ThemeColor)
	if err != nil {
		t.Fatal(err)
	}
	rec := &chartSVG{w: w, h: h}
	cv := &chartCanvas{img: image.NewRGBA(image.Rect(0, 0, int(w), int(h))), kx: 1, ky: 1, lab: NewTextItems(sharedLibrary(t), nil), rec: rec}
	if _, err := drawChart(cv, it.Chart, theme, w, h, chartProgress(it.Chart, lt)); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf(`<div class="c" style="%s">%s</div>`, box, rec.b.String())
}
