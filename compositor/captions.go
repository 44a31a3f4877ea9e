package compositor

import (
	"image"
	"image/color"
	"math"
	"strings"
	"sync"

	"github.com/cutroom/cutroom/compositor/text"
	"github.com/cutroom/cutroom/editor"
)

// defaultTicksPerSecond is the timebase RenderText assumes for captions when the caller does
// not pass one (every editor state in the wild uses it).
const defaultTicksPerSecond = 240000

// captionWord is one word of a caption page: its byte range in the page text and its time
// in caption milliseconds.
type captionWord struct {
	start, end     int
	startMs, endMs float64
}

// captionPage is what a captions item shows for a while: one page of words (word timing) or
// one entry (line timing). It is visible for startMs <= t < endMs.
type captionPage struct {
	text           string
	words          []captionWord
	startMs, endMs float64
}

// captionTimeMs converts an item-local tick to caption time: the entries' clock, which is the
// item's clock shifted by contentStartOffsetMs (the item shows its caption asset from that
// point on, as a trimmed video shows its media from startFromSeconds).
func captionTimeMs(localTicks, ticksPerSecond int64, c *editor.CaptionsProps) float64 {
	if ticksPerSecond <= 0 {
		ticksPerSecond = defaultTicksPerSecond
	}
	return float64(localTicks)*1000/float64(ticksPerSecond) + c.ContentStartOffsetMs
}

// paginateWords groups word entries into pages, greedily in order. A page starts with the
// next non-empty word and takes following words while both hold:
//   - the page text (the words trimmed of surrounding white space, joined by one space)
//     lays out in at most maxLines lines of the box width (lines reports the line count);
//   - the page lasts at most pageMs: last word's endMs - first word's startMs <= pageMs
//     (pageMs <= 0: no limit).
//
// A single word always makes a page, even when it is longer or wider. A page is visible
// from its first word's startMs to its last word's endMs.
func paginateWords(entries []editor.CaptionEntry, maxLines int, pageMs float64, lines func(string) (int, error)) ([]captionPage, error) {
	if maxLines < 1 {
		maxLines = 1
	}
	var pages []captionPage
	var cur *captionPage
	for _, e := range entries {
		w := strings.TrimSpace(e.Text)
		if w == "" {
			continue
		}
		end := math.Max(e.EndMs, e.StartMs)
		if cur != nil {
			cand := cur.text + " " + w
			ok := pageMs <= 0 || end-cur.startMs <= pageMs
			if ok {
				n, err := lines(cand)
				if err != nil {
					return nil, err
				}
				ok = n <= maxLines
			}
			if ok {
				cur.words = append(cur.words, captionWord{start: len(cur.text) + 1, end: len(cand), startMs: e.StartMs, endMs: end})
				cur.text = cand
				cur.endMs = math.Max(cur.endMs, end)
				continue
			}
			pages = append(pages, *cur)
		}
		cur = &captionPage{text: w, startMs: e.StartMs, endMs: end,
			words: []captionWord{{start: 0, end: len(w), startMs: e.StartMs, endMs: end}}}
	}
	if cur != nil {
		pages = append(pages, *cur)
	}
	return pages, nil
}

// linePages makes one page per entry of a line-timed caption asset, showing the entry's
// text (trimmed) for startMs <= t < endMs.
func linePages(entries []editor.CaptionEntry) []captionPage {
	var pages []captionPage
	for _, e := range entries {
		w := strings.TrimSpace(e.Text)
		if w == "" {
			continue
		}
		pages = append(pages, captionPage{text: w, startMs: e.StartMs, endMs: e.EndMs,
			words: []captionWord{{start: 0, end: len(w), startMs: e.StartMs, endMs: e.EndMs}}})
	}
	return pages
}

// pageAt returns the page visible at caption time ms, or nil. When pages overlap (line
// entries may), the last one started wins, as the later caption is drawn on top.
func pageAt(pages []captionPage, ms float64) *captionPage {
	var found *captionPage
	for i := range pages {
		p := &pages[i]
		if p.startMs > ms {
			break
		}
		if ms < p.endMs {
			found = p
		}
	}
	return found
}

// activeWord returns the index of the word being spoken at ms, or -1 (between words).
func (p *captionPage) activeWord(ms float64) int {
	for i, w := range p.words {
		if w.startMs <= ms && ms < w.endMs {
			return i
		}
	}
	return -1
}

// pageKey identifies the pages of a captions item at one box width.
type pageKey struct {
	it    *editor.Item
	width float64
}

// pageCache remembers pagination per item and width; items are immutable once parsed.
type pageCache struct {
	mu  sync.Mutex
	max int
	m   map[pageKey][]captionPage
}

func newPageCache(max int) *pageCache {
	return &pageCache{max: max, m: map[pageKey][]captionPage{}}
}

func (c *pageCache) get(k pageKey) ([]captionPage, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	p, ok := c.m[k]
	return p, ok
}

func (c *pageCache) put(k pageKey, p []captionPage) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= c.max {
		clear(c.m)
	}
	c.m[k] = p
}

// captionPages returns the pages of a captions item at box width w.
func (t *TextItems) captionPages(it *editor.Item, st text.Style, w float64) ([]captionPage, error) {
	k := pageKey{it, w}
	if p, ok := t.pages.get(k); ok {
		return p, nil
	}
	c := it.Captions
	var pages []captionPage
	if strings.EqualFold(assetGranularity(it), "line") {
		pages = linePages(c.Entries)
	} else {
		var err error
		pages, err = paginateWords(c.Entries, c.MaxLines, c.PageDurationMs, func(s string) (int, error) {
			m, err := t.lib.Measure(text.Text{Content: s, Style: st, BoxWidth: w})
			return m.Lines, err
		})
		if err != nil {
			return nil, err
		}
	}
	t.pages.put(k, pages)
	return pages, nil
}

// renderCaptions draws the caption page visible at localTicks with the spoken word in the
// highlight colour.
func (t *TextItems) renderCaptions(it *editor.Item, localTicks, ticksPerSecond int64, scale float64) (*image.RGBA, float64, float64, error) {
	c := it.Captions
	if c == nil || len(c.Entries) == 0 {
		return nil, 0, 0, nil
	}
	st := t.style(it, &c.TextStyle)
	w := it.Width.At(localTicks)
	pages, err := t.captionPages(it, st, w)
	if err != nil {
		return nil, 0, 0, err
	}
	ms := captionTimeMs(localTicks, ticksPerSecond, c)
	p := pageAt(pages, ms)
	if p == nil {
		return nil, 0, 0, nil
	}
	tx := text.Text{Content: p.text, Style: st, BoxWidth: w, Scale: scale}
	active := -1
	var hc color.NRGBA
	// Word timing colours the spoken word; a line entry is one colour.
	if !strings.EqualFold(assetGranularity(it), "line") && c.HighlightColor != "" {
		active = p.activeWord(ms)
		hc = t.color(it, "highlightColor", c.HighlightColor, st.Color)
	}
	if hasCaptionAnimations(it.CaptionAnimations) {
		// Words of the page (for line timing: of the entry) animate.
		ranges := wordRanges(p.text)
		words := make([]wordPaint, len(ranges))
		for i, r := range ranges {
			words[i] = wordPaint{color: st.Color, scale: 1}
			if active >= 0 && r[0] >= p.words[active].start && r[1] <= p.words[active].end {
				words[i].color = hc
			}
		}
		if ticksPerSecond <= 0 {
			ticksPerSecond = defaultTicksPerSecond
		}
		animateWordPaints(it.CaptionAnimations, ms, p.startMs, p.endMs,
			func(d int64) float64 { return float64(d) * 1000 / float64(ticksPerSecond) }, words, st.Size)
		tx.Spans = wordSpans(ranges, words)
	} else if active >= 0 {
		tx.Spans = []text.Span{{Start: p.words[active].start, End: p.words[active].end, Color: hc}}
	}
	return t.render(tx)
}

// assetGranularity returns the caption asset's timingGranularity ("word" when unknown).
func assetGranularity(it *editor.Item) string {
	if it.Asset != nil && it.Asset.TimingGranularity != "" {
		return it.Asset.TimingGranularity
	}
	return "word"
}
