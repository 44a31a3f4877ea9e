package compositor

import (
	"context"
	"image"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/cutroom/cutroom/compositor/text"
	"github.com/cutroom/cutroom/editor"
	"github.com/cutroom/cutroom/internal/imagetest"
)

// captionWords are 300 ms words for caption tests.
var captionWords = strings.Fields("The quick brown fox jumps over the lazy dog")

// captionAsset returns a caption asset of captionWords, each 300 ms, trailing spaces kept as
// transcribers send them.
func captionAsset(id, granularity string) map[string]any {
	var es []any
	for i, w := range captionWords {
		es = append(es, map[string]any{"text": w + " ", "startMs": i * 300, "endMs": i*300 + 300,
			"timestampMs": i * 300, "confidence": 0.9})
	}
	return map[string]any{"id": id, "type": "caption", "filename": "c.json", "size": 100, "remoteUrl": nil,
		"remoteKey": nil, "mimeType": "application/json", "timingGranularity": granularity, "captions": es}
}

// captionsItem is a captions item over the whole test composition width.
func captionsItem(id, asset string, dur int64, kv ...any) map[string]any {
	it := with(geo(id, "captions", 0, dur, 8, 20, tW-16, 50), "assetId", asset,
		"fontFamily", "Noto Sans", "fontStyle", map[string]any{"variant": "normal", "weight": "700"},
		"lineHeight", 1.2, "letterSpacing", 0, "fontSize", 18, "align", "center", "color", "#ffffff",
		"highlightColor", "#39E508", "strokeWidth", 0, "strokeColor", "#000000", "direction", "ltr",
		"pageDurationInMilliseconds", 1500, "maxLines", 2, "contentStartOffsetMs", 0, "source", "auto",
		"captionGroupId", nil, "background", nil)
	delete(it, "keepAspectRatio")
	return with(it, kv...)
}

var (
	testLibOnce sync.Once
	testLib     *text.Library
	testLibErr  error
)

// sharedLibrary returns one font library for the package's tests (loading fonts is slow).
func sharedLibrary(t testing.TB) *text.Library {
	t.Helper()
	testLibOnce.Do(func() { testLib, testLibErr = text.NewLibrary(text.LibraryOptions{}) })
	if testLibErr != nil {
		t.Fatal(testLibErr)
	}
	return testLib
}

// renderTextState renders frame of raw with text, captions and charts drawn.
func renderTextState(t testing.TB, raw []byte, frame int64) *image.RGBA {
	t.Helper()
	// Template graphic nodes draw with Options.Illustrations: the built-in library here, as
	// the browser reference draws them (testIllustrations replaces "heart").
	return renderWith(t, raw, frame, Options{Media: &testMedia{files: map[string][]byte{}},
		Text: NewTextItems(sharedLibrary(t), nil)})
}

// textCases are golden cases that need the text engine.
func textCases() []testCase {
	var cs []testCase
	// Not in the browser check: strokes with round joins, line backgrounds and per-word
	// transforms (our own definitions, not one CSS rule). Charts go as SVG paths and text
	// recorded from the same geometry (checking rasterisation and label placement).
	browser := map[string]bool{"captions_word": true, "captions_line": true,
		"caption_anim_in_typewriter": true, "caption_anim_in_curtain-close": true, "caption_anim_loop_rainbow": true,
		"template": true, "template_zoom_in": true, "chart_line": true, "chart_bar": true, "chart_area": true,
		"chart_pie": true, "chart_radar": true, "chart_scatter": true, "chart_bar_growing": true, "chart_pie_growing": true}
	add := func(name string, frame int64, b *builder) {
		tc := testCase{name: name, b: b, frame: frame, text: true, ssim: 0.95}
		if !browser[name] {
			tc.noBrowser = "not a single CSS rule"
		}
		cs = append(cs, tc)
	}
	words := func() *builder {
		b := newBuilder()
		b.assets["cw"] = captionAsset("cw", "word")
		b.assets["cl"] = captionAsset("cl", "line")
		return b
	}
	// frame 10 = 333 ms: "quick" (300..600) is spoken, on the page "The quick brown fox".
	add("captions_word", 10, words().add(0, captionsItem("c", "cw", 3*sec)))
	add("captions_word_stroke_bg", 40, words().add(0, captionsItem("c", "cw", 3*sec,
		"strokeWidth", 3, "strokeColor", "#000000", "color", "#ffe600", "highlightColor", "#ff2d55",
		"background", map[string]any{"color": "rgba(30,64,175,0.85)", "horizontalPadding": 6, "borderRadius": 6})))
	// line timing: the entry "fox" (900..1200 ms) at frame 30 (1000 ms), offset 0.
	add("captions_line", 30, words().add(0, captionsItem("c", "cl", 3*sec, "fontSize", 30)))
	// caption animations: in over 0.6 s at 0.2 s (frame 6), loops of 1 s at 0.8 s (frame 24)
	anim := func(phase, kind string, dur int64) map[string]any {
		return map[string]any{phase: map[string]any{"type": kind, "durationTicks": dur, "easing": "linear"}}
	}
	for _, kind := range []string{"converge", "elastic-pop", "typewriter", "lay-down", "center-type-out", "curtain-close", "jitter"} {
		add("caption_anim_in_"+kind, 6, words().add(0, captionsItem("c", "cw", 3*sec, "captionAnimations", anim("in", kind, 6*sec/10))))
	}
	for _, kind := range []string{"rainbow", "sweep-shine", "jitter"} {
		add("caption_anim_loop_"+kind, 24, words().add(0, captionsItem("c", "cw", 3*sec, "captionAnimations", anim("loop", kind, sec))))
	}
	// out on a text item: the last 0.5 s of a 1 s item, at 0.8 s
	add("text_anim_out_lay-down", 24, newBuilder().add(0, textItem("x", "Lay me down", sec, "captionAnimations", anim("out", "lay-down", sec/2))))
	// charts: fully grown (frame 30 = 1 s, animation 0.5 s) and half way (frame 5)
	for _, ct := range []string{"line", "bar", "area", "pie", "radar", "scatter"} {
		add("chart_"+ct, 30, newBuilder().add(0, chartItem("ch", ct, "#3B82F6", sec/2)))
	}
	add("chart_bar_growing", 5, newBuilder().add(0, chartItem("ch", "bar", "#3B82F6", sec/2)))
	add("chart_pie_growing", 5, newBuilder().add(0, chartItem("ch", "pie", "#f97316", sec/2)))
	// text templates: an illustration node, a title, and a subtitle zooming in (0.5 s, at 0.25 s)
	add("template", 30, newBuilder().add(0, templateItem("tp", 2*sec, nil)))
	add("template_zoom_in", 6, newBuilder().add(0, templateItem("tp", 2*sec,
		map[string]any{"in": map[string]any{"type": "zoom-in", "durationTicks": sec / 2, "easing": "linear"}})))
	return cs
}

// templateItem is a text-template item over the composition: a translucent heart, a title
// and a subtitle (with animations anim, if any).
func templateItem(id string, dur int64, anim map[string]any) map[string]any {
	it := with(geo(id, "text-template", 0, dur, 0, 0, tW, tH), "schemaVersion", 2, "templateId", "t", "templateCategory", "promo")
	delete(it, "keepAspectRatio")
	textNode := func(id, s string, x, y, w, h, size float64, color string) map[string]any {
		return map[string]any{"id": id, "type": "text", "x": x, "y": y, "width": w, "height": h, "text": s,
			"color": color, "align": "left", "fontFamily": "Noto Sans", "fontStyle": map[string]any{"variant": "normal", "weight": "700"},
			"fontSize": size, "lineHeight": 1.1, "letterSpacing": 0, "direction": "ltr", "strokeWidth": 0,
			"strokeColor": "#000000", "background": nil}
	}
	sub := textNode("sub", "in minutes", 12, 52, 140, 24, 16, "#fde047")
	if anim != nil {
		sub["animations"] = anim
	}
	it["nodes"] = []any{
		map[string]any{"id": "img", "type": "image", "imageType": "svg", "imageComponentId": "heart", "imageLottieJson": nil,
			"x": 100, "y": 10, "width": 50, "height": 50, "opacity": 0.6},
		textNode("title", "Launch", 12, 20, 140, 30, 26, "#ffffff"),
		sub,
	}
	return it
}

// chartItem is a chart over most of the composition with three series (two for scatter).
func chartItem(id, typ, theme string, anim int64) map[string]any {
	it := with(geo(id, "chart", 0, 2*sec, 5, 3, tW-10, tH-6), "chartType", typ, "themeColor", theme,
		"animationDurationTicks", anim)
	series := []any{
		map[string]any{"key": "a", "label": "Alpha"},
		map[string]any{"key": "b", "label": "Beta"},
		map[string]any{"key": "c", "label": "Gamma"},
	}
	switch typ {
	case "pie":
		it["data"] = map[string]any{"slices": []any{
			map[string]any{"label": "A", "value": 45}, map[string]any{"label": "B", "value": 30},
			map[string]any{"label": "C", "value": 15}, map[string]any{"label": "D", "value": 10}}}
	case "scatter":
		it["data"] = map[string]any{"series": series[:2], "points": []any{
			map[string]any{"seriesKey": "a", "x": 2, "y": 3}, map[string]any{"seriesKey": "a", "x": 5, "y": 8},
			map[string]any{"seriesKey": "a", "x": 8, "y": 6}, map[string]any{"seriesKey": "b", "x": 3, "y": 9},
			map[string]any{"seriesKey": "b", "x": 7, "y": 2}}}
	default:
		rows := []any{}
		for i, l := range []string{"Q1", "Q2", "Q3", "Q4", "Q5"} {
			rows = append(rows, map[string]any{"label": l, "values": map[string]any{
				"a": 10 + 6*i, "b": 30 - 4*i, "c": 12 + (i%2)*9}})
		}
		it["data"] = map[string]any{"series": series, "rows": rows}
	}
	return it
}

// textItem is a text item over the composition width.
func textItem(id, content string, dur int64, kv ...any) map[string]any {
	it := with(geo(id, "text", 0, dur, 8, 20, tW-16, 50), "text", content,
		"fontFamily", "Noto Sans", "fontStyle", map[string]any{"variant": "normal", "weight": "700"},
		"lineHeight", 1.2, "letterSpacing", 0, "fontSize", 22, "align", "center", "color", "#ffffff",
		"strokeWidth", 0, "strokeColor", "#000000", "direction", "ltr", "resizeOnEdit", false, "background", nil)
	delete(it, "keepAspectRatio")
	return with(it, kv...)
}

func TestTextGolden(t *testing.T) {
	for _, tc := range textCases() {
		t.Run(tc.name, func(t *testing.T) {
			got := renderTextState(t, tc.b.json(), tc.frame)
			imagetest.Golden(t, filepath.Join("testdata", tc.name+".png"), got, goldenTolerance, *update)
		})
	}
}

// greenBounds returns the bounding box of highlight-green pixels.
func greenBounds(img *image.RGBA) image.Rectangle {
	var r image.Rectangle
	for y := 0; y < img.Rect.Dy(); y++ {
		for x := 0; x < img.Rect.Dx(); x++ {
			p := img.Pix[img.PixOffset(x, y):]
			if p[1] > 150 && p[0] < 120 && p[2] < 120 {
				r = r.Union(image.Rect(x, y, x+1, y+1))
			}
		}
	}
	return r
}

func TestCaptionHighlightFollowsWords(t *testing.T) {
	b := newBuilder()
	b.assets["cw"] = captionAsset("cw", "word")
	raw := b.add(0, captionsItem("c", "cw", 3*sec)).json()
	at := func(frame int64) image.Rectangle { return greenBounds(renderTextState(t, raw, frame)) }
	the, quick, brown, fox, jumps := at(1), at(10), at(20), at(28), at(37)
	for i, r := range []image.Rectangle{the, quick, brown, fox, jumps} {
		if r.Empty() {
			t.Fatalf("word %d has no highlight", i)
		}
	}
	if !(the.Max.X <= quick.Min.X && the.Min.Y == quick.Min.Y) {
		t.Errorf("'quick' %v is not right of 'The' %v on its line", quick, the)
	}
	if !(brown.Min.Y > quick.Max.Y-4 && fox.Min.X >= brown.Max.X) {
		t.Errorf("'brown' %v / 'fox' %v are not on the second line in order", brown, fox)
	}
	if jumps.Min.Y > the.Max.Y {
		t.Errorf("'jumps' %v should open a new page on the first line", jumps)
	}
	// Between pages and after the last word nothing is drawn.
	end := renderTextState(t, raw, 82) // 2733 ms: after "dog" ends at 2700 ms
	for i := 0; i < len(end.Pix); i += 4 {
		if end.Pix[i] != 0 || end.Pix[i+1] != 0 || end.Pix[i+2] != 0 {
			t.Fatal("captions drawn after the last word ended")
		}
	}
}

func TestCaptionContentOffset(t *testing.T) {
	b := newBuilder()
	b.assets["cw"] = captionAsset("cw", "word")
	plain := renderTextState(t, b.add(0, captionsItem("c", "cw", 3*sec)).json(), 18) // 600 ms
	b = newBuilder()
	b.assets["cw"] = captionAsset("cw", "word")
	shifted := renderTextState(t, b.add(0, captionsItem("c", "cw", 3*sec, "contentStartOffsetMs", 600)).json(), 0)
	if err := imagetest.Compare(shifted, plain, 0); err != nil {
		t.Fatalf("offset 600 ms at frame 0 differs from no offset at 600 ms: %v", err)
	}
	if greenBounds(plain).Empty() {
		t.Fatal("no highlighted word at 600 ms")
	}
}

func TestTemplateNodePlacementAndOpacity(t *testing.T) {
	img := renderTextState(t, newBuilder().add(0, templateItem("tp", 2*sec, nil)).json(), 30)
	// The title node at (12, 20), 26 px: its ink starts a little right of x 12 and inside
	// its line box (20..48.6).
	var ink image.Rectangle
	for y := 0; y < 50; y++ {
		for x := 0; x < 95; x++ {
			if p := img.Pix[img.PixOffset(x, y):]; p[0] > 200 && p[2] > 200 {
				ink = ink.Union(image.Rect(x, y, x+1, y+1))
			}
		}
	}
	if ink.Min.X < 12 || ink.Min.X > 16 || ink.Min.Y < 20 || ink.Max.Y > 49 {
		t.Fatalf("title ink %v, want from about (12, 20)", ink)
	}
	// The heart node (100..150 x 10..60) is white at opacity 0.6.
	if p := img.Pix[img.PixOffset(125, 40):]; abs(int(p[0])-153) > 2 || p[0] != p[2] {
		t.Fatalf("heart centre %v, want white at 0.6", p[:4])
	}
}

// Frames of captions, charts and templates rendered from several goroutines through one
// Compositor and one TextItems equal the serial renders (run with -race).
func TestTextItemsParallel(t *testing.T) {
	b := newBuilder()
	b.assets["cw"] = captionAsset("cw", "word")
	anim := map[string]any{"in": map[string]any{"type": "elastic-pop", "durationTicks": sec / 2}}
	b.add(0, captionsItem("c", "cw", 3*sec, "captionAnimations", anim))
	b.add(1, chartItem("ch", "area", "#10b981", sec))
	b.add(2, templateItem("tp", 3*sec, nil))
	st, err := editor.Parse(b.json())
	if err != nil {
		t.Fatal(err)
	}
	c, err := New(st, Options{Media: &testMedia{files: map[string][]byte{}}, Text: NewTextItems(sharedLibrary(t), nil)})
	if err != nil {
		t.Fatal(err)
	}
	const frames = 40
	render := func(n int64) *image.RGBA {
		dst := image.NewRGBA(image.Rect(0, 0, tW, tH))
		if err := c.RenderFrame(context.Background(), n, fps, dst); err != nil {
			t.Error(err)
		}
		return dst
	}
	var serial [frames]*image.RGBA
	for n := range serial {
		serial[n] = render(int64(n))
	}
	var wg sync.WaitGroup
	var par [frames]*image.RGBA
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for n := g; n < frames; n += 4 {
				par[n] = render(int64(n))
			}
		}(g)
	}
	wg.Wait()
	for n := range serial {
		if err := imagetest.Compare(par[n], serial[n], 0); err != nil {
			t.Fatalf("frame %d: %v", n, err)
		}
	}
}

func TestCaptionHighlightRTL(t *testing.T) {
	b := newBuilder()
	a := captionAsset("cw", "word")
	var es []any
	for i, w := range []string{"שלום", "עולם", "יפה"} {
		es = append(es, map[string]any{"text": w, "startMs": i * 300, "endMs": i*300 + 300, "timestampMs": nil, "confidence": nil})
	}
	a["captions"] = es
	b.assets["cw"] = a
	raw := b.add(0, captionsItem("c", "cw", 3*sec, "direction", "rtl", "align", "right")).json()
	first, second := greenBounds(renderTextState(t, raw, 1)), greenBounds(renderTextState(t, raw, 10))
	if first.Empty() || second.Empty() {
		t.Fatal("no highlight")
	}
	// Right to left: the second word is left of the first.
	if second.Max.X > first.Min.X {
		t.Fatalf("second word %v not left of the first %v", second, first)
	}
}

func TestTemplateLottieNodeFails(t *testing.T) {
	it := templateItem("tp", sec, nil)
	it["nodes"] = append(it["nodes"].([]any), map[string]any{"id": "l", "type": "image", "imageType": "lottie",
		"imageComponentId": nil, "imageLottieJson": map[string]any{}, "x": 0, "y": 0, "width": 10, "height": 10, "opacity": 1})
	st, err := editor.Parse(newBuilder().add(0, it).json())
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Media: &testMedia{}, Text: NewTextItems(sharedLibrary(t), nil)}
	if un := editor.UnsupportedFeatures(st, Features(opts)); len(un) != 1 || un[0] != "templateImage:lottie" {
		t.Fatalf("unsupported %v, want templateImage:lottie", un)
	}
	c, err := New(st, opts)
	if err != nil {
		t.Fatal(err)
	}
	err = c.RenderFrame(context.Background(), 0, fps, image.NewRGBA(image.Rect(0, 0, tW, tH)))
	if err == nil || !strings.Contains(err.Error(), "lottie") {
		t.Fatalf("render error %v, want one naming lottie", err)
	}
}
