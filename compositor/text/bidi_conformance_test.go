package text

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/text/unicode/bidi"
)

// The Unicode conformance data for UAX #9, as Debian's unicode-data package installs it
// (scripts/install-deps.sh --test). Its version (15.0) is that of x/text's bidi classes.
const (
	bidiCharacterTestFile = "/usr/share/unicode/BidiCharacterTest.txt"
	bidiTestFile          = "/usr/share/unicode/BidiTest.txt"
)

// openUnicodeData opens a conformance file or skips the test when it is not installed.
func openUnicodeData(t *testing.T, path string) *os.File {
	t.Helper()
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		t.Skipf("%s not installed: skipping the UAX #9 conformance check (apt-get install unicode-data, or scripts/install-deps.sh --test)", path)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// paragraphRTL applies P2-P3 to a paragraph (the tests' "auto" direction; CSS `direction`
// never asks for it).
func paragraphRTL(runes []rune) bool {
	orig := make([]bidi.Class, len(runes))
	for i, r := range runes {
		p, _ := bidi.LookupRune(r)
		orig[i] = p.Class()
	}
	return firstStrongRTL(orig, matchIsolates(orig), 0)
}

// bidiResult resolves a paragraph and returns its levels as the test files write them ("x"
// for characters X9 removes) and the visual order of the others.
func bidiResult(runes []rune, rtl bool) (levels []string, order []int) {
	lv := bidiLevels(runes, rtl)
	var kept []int
	var keptLevels []uint8
	for i, r := range runes {
		p, _ := bidi.LookupRune(r)
		if removedByX9(p.Class()) {
			levels = append(levels, "x")
			continue
		}
		levels = append(levels, strconv.Itoa(int(lv[i])))
		kept = append(kept, i)
		keptLevels = append(keptLevels, lv[i])
	}
	return levels, reorderRuns(kept, keptLevels)
}

// checkBidiCase compares one case's levels and visual order with the file's (both written
// as space-separated fields), reporting at most 20 failures in all.
func checkBidiCase(t *testing.T, failures *int, where string, runes []rune, rtl bool, wantLevels, wantOrder string) {
	t.Helper()
	levels, order := bidiResult(runes, rtl)
	got, want := strings.Join(levels, " "), strings.Join(strings.Fields(wantLevels), " ")
	if got == want {
		got, want = joinInts(order), strings.Join(strings.Fields(wantOrder), " ")
	}
	if got != want {
		if *failures++; *failures <= 20 {
			t.Errorf("%s: levels or order %s, want %s", where, got, want)
		}
	}
}

// joinInts formats a visual order like the test files.
func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, " ")
}

// TestBidiCharacterConformance checks every case of BidiCharacterTest.txt: explicit
// embeddings, overrides and isolates, bracket pairs, weak and neutral types, with the
// paragraph left-to-right, right-to-left or from its first strong character; the levels
// and the visual order of the line must both match.
func TestBidiCharacterConformance(t *testing.T) {
	f := openUnicodeData(t, bidiCharacterTestFile)
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<16), 1<<20)
	cases, failures := 0, 0
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		fields := strings.Split(text, ";")
		if len(fields) != 5 {
			t.Fatalf("line %d: %d fields", line, len(fields))
		}
		var runes []rune
		for _, h := range strings.Fields(fields[0]) {
			v, err := strconv.ParseUint(h, 16, 32)
			if err != nil {
				t.Fatalf("line %d: %v", line, err)
			}
			runes = append(runes, rune(v))
		}
		var rtl bool
		switch fields[1] {
		case "0":
		case "1":
			rtl = true
		case "2":
			rtl = paragraphRTL(runes)
		}
		if want := fields[2] == "1"; rtl != want {
			t.Errorf("line %d: paragraph level rtl=%v, want %s", line, rtl, fields[2])
		}
		cases++
		where := fmt.Sprintf("line %d (%s; dir %s)", line, fields[0], fields[1])
		checkBidiCase(t, &failures, where, runes, rtl, fields[3], fields[4])
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if cases < 90000 {
		t.Fatalf("only %d cases read", cases)
	}
	t.Logf("%d cases, %d failures", cases, failures)
}

// bidiClassRunes gives one character of each class for BidiTest.txt, whose cases are
// written as classes (none of them a bracket).
var bidiClassRunes = map[string]rune{
	"L": 'a', "R": '\u05d0', "AL": '\u0627', "EN": '1', "ES": '+', "ET": '#', "AN": '\u0660',
	"CS": ',', "NSM": '\u0300', "BN": '\u00ad', "B": '\u2029', "S": '\t', "WS": ' ', "ON": '!',
	"LRE": '\u202a', "RLE": '\u202b', "PDF": '\u202c', "LRO": '\u202d', "RLO": '\u202e',
	"LRI": '\u2066', "RLI": '\u2067', "FSI": '\u2068', "PDI": '\u2069',
}

// TestBidiClassConformance checks every case of BidiTest.txt (all sequences of up to four
// classes and longer pitfalls) for each paragraph direction it lists.
func TestBidiClassConformance(t *testing.T) {
	f := openUnicodeData(t, bidiTestFile)
	sc := bufio.NewScanner(f)
	var wantLevels, wantOrder string
	cases, failures := 0, 0
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		switch {
		case text == "" || strings.HasPrefix(text, "#"):
			continue
		case strings.HasPrefix(text, "@Levels:"):
			wantLevels = strings.TrimPrefix(text, "@Levels:")
			continue
		case strings.HasPrefix(text, "@Reorder:"):
			wantOrder = strings.TrimPrefix(text, "@Reorder:")
			continue
		}
		input, bits, ok := strings.Cut(text, ";")
		if !ok {
			t.Fatalf("line %d: no bitset", line)
		}
		var runes []rune
		for _, name := range strings.Fields(input) {
			r, ok := bidiClassRunes[name]
			if !ok {
				t.Fatalf("line %d: unknown class %q", line, name)
			}
			runes = append(runes, r)
		}
		set, err := strconv.Atoi(strings.TrimSpace(bits))
		if err != nil {
			t.Fatalf("line %d: %v", line, err)
		}
		for bit, dir := range []string{"auto", "ltr", "rtl"} {
			if set&(1<<bit) == 0 {
				continue
			}
			rtl := dir == "rtl" || (dir == "auto" && paragraphRTL(runes))
			cases++
			where := fmt.Sprintf("line %d (%s; %s)", line, input, dir)
			checkBidiCase(t, &failures, where, runes, rtl, wantLevels, wantOrder)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if cases < 400000 {
		t.Fatalf("only %d cases read", cases)
	}
	t.Logf("%d cases, %d failures", cases, failures)
}
