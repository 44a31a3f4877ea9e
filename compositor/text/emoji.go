package text

import (
	"github.com/go-text/typesetting/font"
	"github.com/go-text/typesetting/shaping"
)

// Emoji sequences (UTS #51) are drawn as one glyph when the emoji font has a ligature for
// them: a ZWJ sequence (👨‍👩‍👧), an emoji with a skin-tone modifier (👍🏽), a flag of two
// regional indicators (🇫🇷) or of a tag sequence (🏴󠁧󠁢󠁳󠁣󠁴󠁿), a keycap (1️⃣), a character with VS16 (❤️).
// Per-character font fallback would give the joiners, selectors, digits and the combining
// keycap to the text font and cut the sequence in pieces, so emojiClusters finds the
// sequences first and the whole of each is shaped with the emoji font, whose GSUB ligatures
// (applied by HarfBuzz) turn it into one glyph, as Chromium does with the same font. A
// sequence the font has no ligature for shows its parts side by side, like the browser.

const (
	zwj        = '\u200d'
	vs15       = '\ufe0e' // text presentation selector
	vs16       = '\ufe0f' // emoji presentation selector
	keycapMark = '\u20e3'
	cancelTag  = '\U000e007f'
)

// isRegionalIndicator reports whether r is one of the 26 regional indicator symbols.
func isRegionalIndicator(r rune) bool { return r >= 0x1F1E6 && r <= 0x1F1FF }

// isSkinTone reports whether r is an emoji modifier (Fitzpatrick skin tones).
func isSkinTone(r rune) bool { return r >= 0x1F3FB && r <= 0x1F3FF }

// isTag reports whether r is a tag character of an emoji tag sequence.
func isTag(r rune) bool { return r >= 0xE0020 && r <= 0xE007F }

// isKeycapBase reports whether r starts a keycap sequence (0-9, # or *).
func isKeycapBase(r rune) bool { return (r >= '0' && r <= '9') || r == '#' || r == '*' }

// emojiClusters returns the [start, end) rune ranges of the emoji sequences of a paragraph.
// hasEmoji reports whether the emoji font has a glyph for a rune; a character it lacks never
// starts a sequence.
func emojiClusters(runes []rune, hasEmoji func(rune) bool) [][2]int {
	var out [][2]int
	n := len(runes)
	next := func(i int) rune {
		if i < n {
			return runes[i]
		}
		return 0
	}
	for i := 0; i < n; {
		r := runes[i]
		switch {
		case isRegionalIndicator(r) && hasEmoji(r):
			j := i + 1
			if isRegionalIndicator(next(j)) {
				j++
			}
			out = append(out, [2]int{i, j})
			i = j
		case isKeycapBase(r):
			j := i + 1
			if next(j) == vs16 {
				j++
			}
			if next(j) == keycapMark && hasEmoji(keycapMark) {
				out = append(out, [2]int{i, j + 1})
				i = j + 1
				continue
			}
			i++
		case (preferEmojiFont(r) || next(i+1) == vs16) && next(i+1) != vs15 && hasEmoji(r):
			j := emojiModifiers(runes, i+1)
			for next(j) == zwj && j+1 < n && (preferEmojiFont(runes[j+1]) || next(j+2) == vs16) {
				j = emojiModifiers(runes, j+2)
			}
			out = append(out, [2]int{i, j})
			i = j
		default:
			i++
		}
	}
	return out
}

// emojiModifiers returns the index after the presentation selector, skin-tone modifier and tag
// characters that follow an emoji at i.
func emojiModifiers(runes []rune, i int) int {
	for i < len(runes) {
		r := runes[i]
		if r != vs16 && !isSkinTone(r) && !isTag(r) && r != keycapMark {
			break
		}
		i++
		if r == cancelTag {
			break
		}
	}
	return i
}

// singleFace is a shaping.Fontmap that gives every rune one face (an emoji sequence's).
type singleFace struct{ face *font.Face }

// ResolveFace implements shaping.Fontmap.
func (s singleFace) ResolveFace(rune) *font.Face { return s.face }

// emojiFace returns the face emoji sequences are shaped with: the preferred emoji family's
// best face for the style, or nil when the library has none.
func (m *fontmap) emojiFace() (*faceEntry, *font.Face) {
	if m.emoji == nil {
		m.emoji = &emojiChoice{}
		for _, fam := range emojiFamilies() {
			e := m.lib.matchFamily(fam, m.weight, m.italic)
			if e == nil || !e.hasColorBitmaps() {
				continue
			}
			if f, err := e.load(); err == nil && f != nil {
				m.emoji.entry, m.emoji.face = e, f
				m.byFace[f] = e
				break
			}
		}
	}
	return m.emoji.entry, m.emoji.face
}

// emojiChoice caches a fontmap's emoji face (nil fields: none).
type emojiChoice struct {
	entry *faceEntry
	face  *font.Face
}

// splitRun splits one run of one bidi level into shaping inputs: emoji sequences with the
// emoji face, the text between them by the segmenter (script, then font per character).
// The emoji face is looked up (and the emoji font, ~10 MB, parsed) only when the run has a
// character that could start an emoji sequence, not for every run of text.
func (ss *shaperState) splitRun(in shaping.Input, fm *fontmap) []shaping.Input {
	var face *font.Face
	looked := false
	has := func(r rune) bool {
		if !looked {
			looked = true
			_, face = fm.emojiFace()
		}
		if face == nil {
			return false
		}
		_, ok := face.NominalGlyph(r)
		return ok
	}
	clusters := emojiClusters(in.Text[in.RunStart:in.RunEnd], has)
	if len(clusters) == 0 {
		return append([]shaping.Input(nil), ss.seg.Split(in, fm)...)
	}
	var out []shaping.Input
	pos := in.RunStart
	text := func(a, b int) {
		if a < b {
			part := in
			part.RunStart, part.RunEnd = a, b
			out = append(out, ss.seg.Split(part, fm)...)
		}
	}
	for _, c := range clusters {
		a, b := c[0]+in.RunStart, c[1]+in.RunStart
		text(pos, a)
		part := in
		part.RunStart, part.RunEnd = a, b
		out = append(out, ss.seg.Split(part, singleFace{face})...)
		pos = b
	}
	text(pos, in.RunEnd)
	return out
}
