package compositor

import (
	"github.com/cutroom/cutroom/editor"
	"github.com/cutroom/cutroom/lottie"
)

// CaptionAnimationTypes is implemented by TextRenderers that draw only some caption
// animations (captionAnimations in/out/loop of text and captions items); Features then lists
// only those, so exports using the others are refused at create.
type CaptionAnimationTypes interface {
	CaptionAnimationTypes() []string
}

// Features returns what a Compositor built with opts draws, for editor.Capabilities and
// the export package's Featured interface. Everything of editor state v1 is drawn except:
// text-template image nodes of type lottie; lottie items in a build without Lottie
// renderer processes (lottie.Supported: Linux only); chart items unless opts.Text is a TextItems (labels need the text engine); video items unless opts.Media implements
// VideoFrames; text, captions and text-template items (and caption animations) unless
// opts.Text is set (only the types a TextTypes renderer names). Audio items are not listed:
// they have no pixels, and the export pipeline adds them when it mixes sound.
//
// A TextRenderer that implements CaptionAnimationTypes advertises exactly the caption
// animations it names.
func Features(opts Options) editor.FeatureSet {
	all := editor.AllFeatures()
	_, video := opts.Media.(VideoFrames)
	textTypes := map[editor.ItemType]bool{editor.ItemText: true, editor.ItemCaptions: true, editor.ItemTextTemplate: true}
	if tt, ok := opts.Text.(TextTypes); ok {
		textTypes = map[editor.ItemType]bool{}
		for _, t := range tt.TextItemTypes() {
			textTypes[t] = true
		}
	}
	var items []editor.ItemType
	for _, t := range all.ItemTypes {
		switch t {
		case editor.ItemChart:
			if _, ok := opts.Text.(chartLabeler); !ok {
				continue
			}
		case editor.ItemAudio:
			continue // no pixels: the export pipeline adds audio items when it mixes sound
		case editor.ItemVideo:
			if !video {
				continue
			}
		case editor.ItemLottie:
			if lottie.Supported() != nil {
				continue
			}
		case editor.ItemText, editor.ItemCaptions, editor.ItemTextTemplate:
			if opts.Text == nil || !textTypes[t] {
				continue
			}
		}
		items = append(items, t)
	}
	fs := all
	fs.ItemTypes = items
	if _, ok := opts.Text.(chartLabeler); !ok {
		fs.ChartTypes = nil // charts need the text engine for their labels
	}
	switch ca, ok := opts.Text.(CaptionAnimationTypes); {
	case opts.Text == nil:
		fs.CaptionAnimations = nil
	case ok:
		fs.CaptionAnimations = ca.CaptionAnimationTypes()
	case !textTypes[editor.ItemCaptions]:
		fs.CaptionAnimations = nil // caption animations animate captions' words
	}
	// Template image nodes: built-in illustrations as svg; lottie nodes are not drawn (lottie
	// items are).
	fs.TemplateImages = nil
	if opts.Text != nil && textTypes[editor.ItemTextTemplate] {
		fs.TemplateImages = []string{"svg"}
	}
	var presets []string
	for _, id := range all.BackgroundImages {
		if _, ok := backgroundPresets[id]; ok {
			presets = append(presets, id)
		}
	}
	fs.BackgroundImages = presets
	return fs
}
