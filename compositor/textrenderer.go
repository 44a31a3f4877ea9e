package compositor

import (
	"image"
	"log/slog"

	"github.com/cutroom/cutroom/editor"
)

// TextRenderer draws text-like items (text, captions, text-template) at the item's local
// time (members may be animated, captions change with time). The compositor places the
// returned layer like any other media: its pixels are at `scale` destination pixels per
// composition pixel, its top-left sits at (offX, offY) composition pixels from the item box's
// top-left, and it is then moved with the item's geometry (scale, rotation, opacity,
// animations, transitions). Text is not clipped by the box. A nil layer draws nothing.
// Implementations must be safe for concurrent use.
type TextRenderer interface {
	RenderText(it *editor.Item, localTicks int64, scale float64) (layer *image.RGBA, offX, offY float64, err error)
}

// TimedTextRenderer is implemented by TextRenderers whose output depends on wall-clock time
// within the item (captions are timed in milliseconds); the compositor then calls
// RenderTextTimed with the state's timebase instead of RenderText.
type TimedTextRenderer interface {
	RenderTextTimed(it *editor.Item, localTicks, ticksPerSecond int64, scale float64) (layer *image.RGBA, offX, offY float64, err error)
}

// TextTypes is implemented by TextRenderers that draw only some of the text-like item types;
// Features then advertises only those. A TextRenderer without it draws all three.
type TextTypes interface {
	TextItemTypes() []editor.ItemType
}

// IllustratedText is implemented by TextRenderers that draw illustrations (text-template
// graphic nodes): New gives them the compositor's Options.Illustrations, so a template
// node names the same illustrations an illustration item does (a workspace's own ones
// too), and uses the renderer it returns.
type IllustratedText interface {
	WithIllustrations(IllustrationFunc) TextRenderer
}

// LoggedText is implemented by TextRenderers that log warnings (a colour they ignore): when
// Options.Logger is set, New gives them that logger (which names the render, e.g. its task)
// and uses the renderer it returns, so a warning about an item says which render it was.
type LoggedText interface {
	WithLogger(*slog.Logger) TextRenderer
}
