package compositor

import (
	"image"
	"image/color"
	"log/slog"
	"unicode"

	"github.com/cutroom/cutroom/compositor/text"
	"github.com/cutroom/cutroom/editor"
)

// TextItems draws text items with the text engine (package compositor/text): shaping,
// wrapping in the box width, alignment, direction, letter spacing, line height, stroke under
// the fill with round joins, and per-line backgrounds. Layers are cached by the library, so a
// static title costs a lookup per frame. It is safe for concurrent use.
type TextItems struct {
	lib   *text.Library
	log   *slog.Logger
	pages *pageCache
	masks *maskCache // template illustrations
	ill   IllustrationFunc
}

// NewTextItems returns a TextRenderer over a font library; log receives warnings about
// unparseable colours (nil discards them).
func NewTextItems(lib *text.Library, log *slog.Logger) *TextItems {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &TextItems{lib: lib, log: log, pages: newPageCache(64), masks: newMaskCache(64), ill: LibraryIllustrations}
}

// WithIllustrations returns a TextItems sharing t's fonts and text caches that draws
// template graphic nodes with lib (nil: the built-in library) and its own illustration
// cache, so the same name from two lookups (two workspaces) never shares a drawing. The
// compositor calls it with its Options.Illustrations (IllustratedText).
func (t *TextItems) WithIllustrations(lib IllustrationFunc) TextRenderer {
	if lib == nil {
		lib = LibraryIllustrations
	}
	c := *t
	c.masks, c.ill = newMaskCache(64), lib
	return &c
}

// WithLogger returns a TextItems sharing t's fonts, caches and illustrations that logs its
// warnings to log (LoggedText: the compositor's logger, which names the render).
func (t *TextItems) WithLogger(log *slog.Logger) TextRenderer {
	c := *t
	c.log = log
	return &c
}

// TextItemTypes lists the item types RenderText draws: text, captions and text templates
// (whose lottie image nodes are not drawn: Features leaves "lottie" out of TemplateImages).
func (t *TextItems) TextItemTypes() []editor.ItemType {
	return []editor.ItemType{editor.ItemText, editor.ItemCaptions, editor.ItemTextTemplate}
}

// CaptionAnimationTypes lists the caption animations RenderText draws on text and captions
// items (every id of editor state v1).
func (t *TextItems) CaptionAnimationTypes() []string {
	return captionAnimationIDs()
}

// RenderTextTimed is RenderText with the state's timebase, which captions need: their
// entries are timed in milliseconds.
func (t *TextItems) RenderTextTimed(it *editor.Item, localTicks, ticksPerSecond int64, scale float64) (*image.RGBA, float64, float64, error) {
	if it.Type == editor.ItemCaptions {
		return t.renderCaptions(it, localTicks, ticksPerSecond, scale)
	}
	return t.RenderText(it, localTicks, scale)
}

// RenderText renders a text item at local time localTicks (the box width may be animated)
// into a layer at scale output pixels per composition pixel.
func (t *TextItems) RenderText(it *editor.Item, localTicks int64, scale float64) (*image.RGBA, float64, float64, error) {
	if it.Type == editor.ItemCaptions {
		return t.renderCaptions(it, localTicks, defaultTicksPerSecond, scale)
	}
	if it.Type == editor.ItemTextTemplate {
		return t.renderTemplate(it, localTicks, scale)
	}
	if it.Type != editor.ItemText || it.Text == nil {
		return nil, 0, 0, nil
	}
	st := t.style(it, &it.Text.TextStyle)
	tx := text.Text{Content: it.Text.Text, Style: st, BoxWidth: it.Width.At(localTicks), Scale: scale,
		Spans: animatedWordSpans(it.CaptionAnimations, it.Text.Text, st, localTicks, it.DurationTicks)}
	return t.render(tx)
}

// animatedWordSpans paints each word of content by the caption animations running at local
// tick lt of an item (or template node) lasting dur ticks; nil when there are none.
func animatedWordSpans(anims editor.CaptionAnimations, content string, st text.Style, lt, dur int64) []text.Span {
	if !hasCaptionAnimations(anims) {
		return nil
	}
	ranges := wordRanges(content)
	words := make([]wordPaint, len(ranges))
	for i := range words {
		words[i] = wordPaint{color: st.Color, scale: 1}
	}
	animateWordPaints(anims, float64(lt), 0, float64(dur), func(d int64) float64 { return float64(d) }, words, st.Size)
	return wordSpans(ranges, words)
}

// style maps an editor text style onto the text engine's.
func (t *TextItems) style(it *editor.Item, p *editor.TextStyle) text.Style {
	st := text.Style{
		Family:        p.FontFamily,
		Weight:        text.ParseWeight(p.FontStyle.Weight),
		Italic:        p.FontStyle.Italic(),
		Size:          p.FontSize,
		LineHeight:    p.LineHeight,
		LetterSpacing: p.LetterSpacing,
		Align:         string(p.Align),
		Direction:     string(p.Direction),
		Color:         t.color(it, "color", p.Color, color.NRGBA{A: 255}),
		StrokeWidth:   p.StrokeWidth,
		StrokeJoin:    "round",
	}
	if p.StrokeWidth > 0 {
		st.StrokeColor = t.color(it, "strokeColor", p.StrokeColor, color.NRGBA{})
	}
	if bg := p.Background; bg != nil {
		if c := t.color(it, "background.color", bg.Color, color.NRGBA{}); c.A > 0 {
			st.Background = &text.Background{Color: c, HorizontalPadding: bg.HorizontalPadding, BorderRadius: bg.BorderRadius}
		}
	}
	return st
}

// color parses a CSS colour member, falling back to def (as a browser ignores an invalid
// declaration) with a warning.
func (t *TextItems) color(it *editor.Item, member, s string, def color.NRGBA) color.NRGBA {
	if s == "" {
		return def
	}
	c, err := ParseColor(s)
	if err != nil {
		t.log.Warn("text item colour ignored", "item", it.ID, "member", member, "err", err)
		return def
	}
	return color.NRGBA{R: c.R, G: c.G, B: c.B, A: c.A}
}

// wordRanges returns the byte ranges of the white-space separated words of s.
func wordRanges(s string) [][2]int {
	var out [][2]int
	start := -1
	for i, r := range s {
		if unicode.IsSpace(r) {
			if start >= 0 {
				out = append(out, [2]int{start, i})
				start = -1
			}
			continue
		}
		if start < 0 {
			start = i
		}
	}
	if start >= 0 {
		out = append(out, [2]int{start, len(s)})
	}
	return out
}

// wordSpans turns per-word paints into text spans.
func wordSpans(ranges [][2]int, words []wordPaint) []text.Span {
	spans := make([]text.Span, len(ranges))
	for i, r := range ranges {
		w := words[i]
		spans[i] = text.Span{Start: r[0], End: r[1], Color: w.color, Hidden: w.hidden,
			Fade: w.fade, DX: w.dx, DY: w.dy, Scale: w.scale}
	}
	return spans
}

// chartLabel renders a one-line chart label in Noto Sans at size px, shifted right by dx
// composition px (a sub-pixel phase); dx < 0 only measures it.
func (t *TextItems) chartLabel(s string, size float64, c color.NRGBA, scale, dx float64) (*text.Layer, text.Metrics, error) {
	tx := text.Text{Content: s, Style: text.Style{Family: "Noto Sans", Size: size, LineHeight: 1.2, Color: c},
		BoxWidth: text.MaxLayerSize / scale / 2, Scale: scale}
	if dx < 0 {
		m, err := t.lib.Measure(tx)
		return nil, m, err
	}
	if dx > 0 {
		tx.Spans = []text.Span{{Start: 0, End: len(s), Color: c, DX: dx}}
	}
	l, err := t.lib.Render(tx)
	return l, text.Metrics{}, err
}

// render draws tx with the library and returns the layer as a TextRenderer does (nil when
// there is nothing to draw).
func (t *TextItems) render(tx text.Text) (*image.RGBA, float64, float64, error) {
	layer, err := t.lib.Render(tx)
	if err != nil || layer == nil || layer.Image == nil {
		return nil, 0, 0, err
	}
	return layer.Image, layer.OffsetX, layer.OffsetY, nil
}
