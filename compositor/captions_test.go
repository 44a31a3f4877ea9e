package compositor

import (
	"testing"

	"github.com/cutroom/cutroom/editor"
)

// charLines is a fake layout: lines of at most n bytes, breaking only at spaces.
func charLines(n int) func(string) (int, error) {
	return func(s string) (int, error) {
		lines, cur := 1, 0
		for i, w := range splitWords(s) {
			switch {
			case i == 0:
				cur = len(w)
			case cur+1+len(w) <= n:
				cur += 1 + len(w)
			default:
				lines++
				cur = len(w)
			}
		}
		return lines, nil
	}
}

func splitWords(s string) []string {
	var out []string
	start := 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == ' ' {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return out
}

func words(texts ...string) []editor.CaptionEntry {
	var es []editor.CaptionEntry
	for i, t := range texts {
		es = append(es, editor.CaptionEntry{Text: t, StartMs: float64(i * 300), EndMs: float64(i*300 + 300)})
	}
	return es
}

func TestPaginateWordsByLines(t *testing.T) {
	// 10-byte lines, 2 lines per page: "aaaa bbbb" / "cccc dddd" fill one page.
	es := words("aaaa ", "bbbb ", "cccc ", "dddd ", "eeee", " ", "ffff")
	pages, err := paginateWords(es, 2, 0, charLines(10))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"aaaa bbbb cccc dddd", "eeee ffff"}
	if len(pages) != len(want) {
		t.Fatalf("%d pages %+v, want %d", len(pages), pages, len(want))
	}
	for i, p := range pages {
		if p.text != want[i] {
			t.Errorf("page %d %q, want %q", i, p.text, want[i])
		}
		for _, w := range p.words {
			if got := p.text[w.start:w.end]; got == "" || got[0] == ' ' || got[len(got)-1] == ' ' {
				t.Errorf("page %d word range %d..%d is %q", i, w.start, w.end, got)
			}
		}
	}
	if pages[0].startMs != 0 || pages[0].endMs != 1200 || pages[1].startMs != 1200 || pages[1].endMs != 2100 {
		t.Fatalf("page times %v..%v, %v..%v", pages[0].startMs, pages[0].endMs, pages[1].startMs, pages[1].endMs)
	}
	if got := pages[1].text[pages[1].words[1].start:pages[1].words[1].end]; got != "ffff" {
		t.Fatalf("second word of page 2 is %q", got)
	}
}

func TestPaginateWordsByDuration(t *testing.T) {
	// Each word lasts 300 ms; a 700 ms page takes two words (600 ms), not three (900 ms).
	es := words("a", "b", "c", "d", "e")
	pages, err := paginateWords(es, 5, 700, charLines(100))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range pages {
		got = append(got, p.text)
	}
	if len(got) != 3 || got[0] != "a b" || got[1] != "c d" || got[2] != "e" {
		t.Fatalf("pages %q", got)
	}
	// A word longer than the page duration or the box still gets its own page.
	es = []editor.CaptionEntry{{Text: "supercalifragilistic", StartMs: 0, EndMs: 5000}, {Text: "x", StartMs: 5000, EndMs: 5100}}
	pages, _ = paginateWords(es, 1, 700, charLines(5))
	if len(pages) != 2 || pages[0].text != "supercalifragilistic" {
		t.Fatalf("pages %+v", pages)
	}
}

func TestPageAtAndActiveWord(t *testing.T) {
	es := []editor.CaptionEntry{
		{Text: "one", StartMs: 0, EndMs: 400},
		{Text: "two", StartMs: 500, EndMs: 900}, // a 100 ms pause inside the page
		{Text: "three", StartMs: 2000, EndMs: 2500},
	}
	pages, _ := paginateWords(es, 1, 1000, charLines(100))
	if len(pages) != 2 {
		t.Fatalf("%d pages", len(pages))
	}
	cases := []struct {
		ms   float64
		page string
		word int
	}{
		{-1, "", -1}, {0, "one two", 0}, {399, "one two", 0}, {450, "one two", -1},
		{500, "one two", 1}, {899, "one two", 1}, {900, "", -1}, {1999, "", -1},
		{2000, "three", 0}, {2499, "three", 0}, {2500, "", -1},
	}
	for _, c := range cases {
		p := pageAt(pages, c.ms)
		switch {
		case c.page == "" && p != nil:
			t.Errorf("at %v ms page %q, want none", c.ms, p.text)
		case c.page != "" && (p == nil || p.text != c.page):
			t.Errorf("at %v ms page %v, want %q", c.ms, p, c.page)
		case p != nil && p.activeWord(c.ms) != c.word:
			t.Errorf("at %v ms word %d, want %d", c.ms, p.activeWord(c.ms), c.word)
		}
	}
}

func TestCaptionTimeUsesOffset(t *testing.T) {
	c := &editor.CaptionsProps{ContentStartOffsetMs: 600}
	if got := captionTimeMs(120000, 240000, c); got != 1100 {
		t.Fatalf("caption time %v, want 1100", got)
	}
}

func TestPaginateDegenerateEntries(t *testing.T) {
	es := []editor.CaptionEntry{
		{Text: "  ", StartMs: 0, EndMs: 100},
		{Text: "back", StartMs: 500, EndMs: 200}, // ends before it starts: a zero-length word
		{Text: "\nok\t", StartMs: 600, EndMs: 900},
	}
	pages, err := paginateWords(es, 0, 0, charLines(100))
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) != 1 || pages[0].text != "back ok" || pages[0].startMs != 500 || pages[0].endMs != 900 {
		t.Fatalf("pages %+v", pages)
	}
	if p := pageAt(pages, 550); p == nil || p.activeWord(550) != -1 {
		t.Fatalf("zero-length word highlighted at 550 ms")
	}
	if got := linePages([]editor.CaptionEntry{{Text: " ", StartMs: 0, EndMs: 10}}); len(got) != 0 {
		t.Fatalf("blank line entry kept: %+v", got)
	}
}
