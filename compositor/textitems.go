package compositor

import (
	"image"
	"image/color"
	"log/slog"

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
}

// NewTextItems returns a TextRenderer over a font library; log receives warnings about
// unparseable colours (nil discards them).
func NewTextItems(lib *text.Library, log *slog.Logger) *TextItems {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &TextItems{lib: lib, log: log, pages: newPageCache(256)}
}

// TextItemTypes lists the item types RenderText draws. Text templates are not drawn yet, so
// Features leaves them out and exports using them are refused up front.
func (t *TextItems) TextItemTypes() []editor.ItemType {
	return []editor.ItemType{editor.ItemText, editor.ItemCaptions}
}

// CaptionAnimationTypes lists the caption animations RenderText draws (none yet).
func (t *TextItems) CaptionAnimationTypes() []string {
	return nil
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
	if it.Type != editor.ItemText || it.Text == nil {
		return nil, 0, 0, nil
	}
	st := t.style(it, &it.Text.TextStyle)
	layer, err := t.lib.Render(text.Text{Content: it.Text.Text, Style: st, BoxWidth: it.Width.At(localTicks), Scale: scale})
	if err != nil {
		return nil, 0, 0, err
	}
	if layer == nil || layer.Image == nil {
		return nil, 0, 0, nil
	}
	return layer.Image, layer.OffsetX, layer.OffsetY, nil
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
