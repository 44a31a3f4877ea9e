// Package text lays out and rasterises the text of `text` items so that an export looks like
// the editor's preview, which is CSS in a browser.
//
// A [Library] holds fonts: a small permissive set embedded in the binary (Noto Sans, Serif
// and Mono, Noto scripts for Arabic, Hebrew, Devanagari and a CJK subset, Noto Color Emoji
// (CBDT colour bitmaps, drawn in colour) and Symbola for other symbols; fonts/README.md has
// their licences), the editor's default web fonts Inter and TikTok Sans (webfonts.go:
// fetched at build time by scripts/fonts.sh from pinned fontsource packages, WOFF2 subsets
// chosen per character by unicode-range as a browser does), fonts from operator
// directories, system font directories (unless LibraryOptions.IncludeSystem is off), and
// font files registered at run time. TTF, OTF, TTC, WOFF and WOFF2 are read; WOFF2 is
// decoded here (woff2.go; go-text reads WOFF 1.0 only), bounded against hostile sizes and
// brotli bombs. [Library.FamilyInfos] lists the families, faces and their sources.
// docs/fonts.md describes the whole. [Library.Render] turns a [Text] (content, [Style], box width and
// output scale) into a [Layer]: a premultiplied RGBA image plus its offset from the text box's
// top-left corner. The compositor then transforms that layer with the item's geometry.
//
// Layout follows CSS `white-space: pre-wrap; overflow-wrap: break-word`: explicit newlines are
// kept, lines wrap at UAX #14 break opportunities inside a fixed box width, a word longer than
// the box breaks between grapheme clusters, and trailing spaces hang. Text is shaped with
// HarfBuzz (github.com/go-text/typesetting), so kerning, ligatures, Arabic joining and Indic
// reordering work like in the browser.
//
// Bidirectional text follows UAX #9 as Chromium (ICU) applies it to `direction: ltr|rtl`
// (bidi.go, bidi_explicit.go): the paragraph level is the item's direction; the explicit
// rules X1-X10 interpret LRE, RLE, LRO, RLO, PDF, LRI, RLI, FSI and PDI (a directional status
// stack 125 levels deep with overflow counters, isolates matched to their PDI, FSI taking the
// direction of its first strong character up to that PDI); levels are resolved per isolating
// run sequence with our own W1-W7, N0-N2 and I1-I2 over x/text's character classes (x/text's
// Paragraph.Order gives run directions but no levels, so digits inside a right-to-left run
// broke it in two); each run of one level is shaped in its level's direction (also where the
// shaping segmenter's own bidi pass would disagree, as under an override); lines break on the
// logical text; then each line's runs are reordered by L2, trailing white space and isolate
// controls at the paragraph level (L1). The conformance files BidiCharacterTest.txt and
// BidiTest.txt (Debian's unicode-data) pass in full. Text without explicit controls takes
// the old path: one isolating run sequence, no stack. The controls, like every
// default-ignorable character, draw nothing and take neither advance nor letter-spacing, as
// in Chromium. Line boxes follow the CSS
// inline formatting model: each line is lineHeight*fontSize tall, with half the leading above
// the primary font's ascent and half below its descent, ascent and descent rounded to whole
// pixels as Chromium does.
//
// Emoji (emoji.go): Noto Color Emoji is embedded uncompressed (its PNG glyphs compress by
// 7-10%, not worth a decompression and an xz dependency). Emoji sequences are found before
// font fallback (keycaps, flags, ZWJ sequences with skin tones and VS16) and shaped whole
// with the emoji face, so its GSUB ligatures draw each as one glyph; per-character fallback
// alone would give a keycap's digit and combining mark to the text font.
//
// Stroke follows `-webkit-text-stroke` with `paint-order: stroke fill`: the stroke is centred
// on the glyph outline and painted under the fill, so strokeWidth/2 shows outside the glyph.
// It is built from the flattened outline as the union of one rectangle per edge and one join
// per vertex (miter with limit 4 like Chromium, or round), which for round joins is exactly
// the Minkowski sum of the glyph with a disc (see dilatePath in raster.go). A background
// paints one rounded box per line, and neighbouring boxes join with smooth concave corners,
// like captions in social video apps.
//
// Errors: the package never reaches an API client, so it has no error codes. Every error it
// returns matches one sentinel kind (ErrLayerTooLarge, ErrInvalidStyle, ErrTextTooLong,
// ErrNoFont, ErrInternal, ErrFontInvalid, ErrFontTooLarge) with errors.Is and reads
// "text: <message>"; the compositor reports them as text failures.
//
// All caches live in the Library; the package has no mutable package-level state, and a
// Library is safe for concurrent use.
package text
