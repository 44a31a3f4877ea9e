package svgbudget_test

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/cutroom/cutroom/internal/svgtest"
	"github.com/cutroom/cutroom/svgbudget"
	"github.com/srwiley/oksvg"
)

func tooComplex(t *testing.T, err error, measure string) *svgbudget.TooComplexError {
	t.Helper()
	var tc *svgbudget.TooComplexError
	if !errors.As(err, &tc) || tc.Measure != measure {
		t.Fatalf("err = %v, want a TooComplexError on %s", err, measure)
	}
	return tc
}

// oksvgPaths is how many paths the compositor's SVG library builds from a document.
func oksvgPaths(t *testing.T, src []byte) int {
	t.Helper()
	icon, err := oksvg.ReadIconStream(bytes.NewReader(src), oksvg.IgnoreErrorMode)
	if err != nil {
		t.Fatalf("oksvg: %v", err)
	}
	return len(icon.SVGPaths)
}

func TestNestedUseBomb(t *testing.T) {
	if n := len(svgtest.NestedUse(5, 10)); n > 1300 {
		t.Fatalf("the level-5 bomb is %d bytes, not about 1 KB", n)
	}
	// Small levels are measured, and the measure bounds what oksvg builds.
	for l := 1; l <= 3; l++ {
		src := svgtest.NestedUse(l, 10)
		m, err := svgbudget.CheckBytes(src, svgbudget.Limits{})
		if err != nil {
			t.Fatalf("level %d: %v", l, err)
		}
		paths := oksvgPaths(t, src)
		if want := pow(10, l); paths != want {
			t.Fatalf("level %d: oksvg builds %d paths, want %d", l, paths, want)
		}
		if m.Elements < int64(paths) || m.Elements > 5*int64(paths)+20 {
			t.Errorf("level %d: %d elements measured for %d paths", l, m.Elements, paths)
		}
		if m.PathPoints < 6*int64(paths) {
			t.Errorf("level %d: %d points measured for %d paths of 6 numbers", l, m.PathPoints, paths)
		}
	}
	// Level 5 and more are refused; the walk is linear, so level 9 (a billion paths) is
	// refused as quickly as level 5, and so are a million levels of the chain.
	for _, l := range []int{5, 6, 9, 40} {
		_, err := svgbudget.CheckBytes(svgtest.NestedUse(l, 10), svgbudget.Limits{})
		tc := tooComplex(t, err, svgbudget.MeasureElements)
		if tc.Limit != svgbudget.DefaultMaxElements || !strings.Contains(tc.Error(), "20000") {
			t.Errorf("level %d: %v", l, tc)
		}
	}
	// A configured limit applies.
	_, err := svgbudget.CheckBytes(svgtest.NestedUse(3, 10), svgbudget.Limits{MaxElements: 500})
	tooComplex(t, err, svgbudget.MeasureElements)
}

func pow(b, e int) int {
	r := 1
	for ; e > 0; e-- {
		r *= b
	}
	return r
}

// TestDefinitionRuns covers what oksvg, unlike browsers, takes for a definition: the run of
// elements from an id to the next id in <defs>. The id-less paths after "p" are not in its
// subtree, yet oksvg draws them for every use of #p.
func TestDefinitionRuns(t *testing.T) {
	var b strings.Builder
	b.WriteString(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><defs><path id="p" d="M0 0h1v1z"/>`)
	for i := 0; i < 200; i++ {
		b.WriteString(`<path d="M0 0h1v1z"/>`)
	}
	b.WriteString(`</defs>`)
	for i := 0; i < 200; i++ {
		b.WriteString(`<use href="#p"/>`)
	}
	b.WriteString(`</svg>`)
	src := []byte(b.String())
	paths := oksvgPaths(t, src)
	if paths < 200*200 {
		t.Fatalf("oksvg built only %d paths", paths)
	}
	_, err := svgbudget.CheckBytes(src, svgbudget.Limits{})
	tooComplex(t, err, svgbudget.MeasureElements)
	m, err := svgbudget.CheckBytes(src, svgbudget.Limits{MaxElements: 100_000})
	if err != nil || m.Elements < int64(paths) {
		t.Fatalf("measured %+v, %v for %d paths", m, err, paths)
	}
}

func TestUseCycles(t *testing.T) {
	for name, src := range map[string]string{
		"self":      `<svg><defs><g id="a"><use href="#a"/></g></defs><use href="#a"/></svg>`,
		"mutual":    `<svg><defs><g id="a"><use href="#b"/></g><g id="b"><use xlink:href="#a"/></g></defs><use href="#a"/></svg>`,
		"in-run":    `<svg><defs><path id="a" d="M0 0"/><use href="#a"/></defs></svg>`,
		"subtree":   `<svg><g id="a"><g><use href="#a"/></g></g></svg>`,
		"unused":    `<svg><defs><g id="a"><use href="#b"/></g><g id="b"><use href="#a"/></g></defs></svg>`,
		"duplicate": `<svg><defs><g id="a"/><g id="a"><use href="#a"/></g></defs></svg>`,
	} {
		_, err := svgbudget.CheckBytes([]byte(src), svgbudget.Limits{})
		if !errors.Is(err, svgbudget.ErrUseCycle) {
			t.Errorf("%s: err = %v, want a use cycle", name, err)
		}
	}
	// A use of an earlier sibling is no cycle, nor a use of an element defined after it.
	for _, src := range []string{
		`<svg><defs><path id="a" d="M0 0"/></defs><g id="b"><use href="#a"/></g><use href="#b"/></svg>`,
		`<svg><use href="#a"/><defs><path id="a" d="M0 0"/></defs></svg>`,
		`<svg><use href="#missing"/><use href="other.svg#a"/><use/></svg>`,
	} {
		if _, err := svgbudget.CheckBytes([]byte(src), svgbudget.Limits{}); err != nil {
			t.Errorf("%s: %v", src, err)
		}
	}
}

func TestDepth(t *testing.T) {
	deep := func(n int) []byte {
		return []byte(`<svg>` + strings.Repeat("<g>", n) + strings.Repeat("</g>", n) + `</svg>`)
	}
	m, err := svgbudget.CheckBytes(deep(62), svgbudget.Limits{})
	if err != nil || m.Depth != 63 {
		t.Fatalf("62 groups: %+v %v", m, err)
	}
	_, err = svgbudget.CheckBytes(deep(64), svgbudget.Limits{})
	tooComplex(t, err, svgbudget.MeasureDepth)
	// 100,000 levels are refused while reading, without holding them.
	_, err = svgbudget.CheckBytes(deep(100_000), svgbudget.Limits{})
	tooComplex(t, err, svgbudget.MeasureDepth)
	// Depth through uses: each level's group nests the previous one once more.
	var b strings.Builder
	b.WriteString(`<svg><defs><path id="l0" d="M0 0"/>`)
	for l := 1; l <= 40; l++ {
		fmt.Fprintf(&b, `<g id="l%d"><use href="#l%d"/></g>`, l, l-1)
	}
	b.WriteString(`</defs><use href="#l40"/></svg>`)
	_, err = svgbudget.CheckBytes([]byte(b.String()), svgbudget.Limits{})
	tooComplex(t, err, svgbudget.MeasureDepth)
	m, err = svgbudget.CheckBytes([]byte(b.String()), svgbudget.Limits{MaxDepth: 1000})
	if err != nil || m.Depth < 80 {
		t.Fatalf("through uses: %+v %v", m, err)
	}
}

func TestPathPoints(t *testing.T) {
	for _, tc := range []struct {
		d    string
		want int64
	}{{"M0 0L10 10", 4}, {"M1.5.5-2e3-4E-2z", 4}, {"m-1,-1 h.5 v.25", 4}, {"", 0}, {"M 1e", 1}} {
		m, err := svgbudget.CheckBytes([]byte(`<svg><path d="`+tc.d+`"/></svg>`), svgbudget.Limits{})
		if err != nil || m.PathPoints != tc.want {
			t.Errorf("d=%q: %+v %v, want %d points", tc.d, m, err, tc.want)
		}
	}
	big := []byte(`<svg><polygon points="` + strings.Repeat("1 2 ", 600) + `"/></svg>`)
	_, err := svgbudget.CheckBytes(big, svgbudget.Limits{MaxPathPoints: 1000})
	tooComplex(t, err, svgbudget.MeasurePathPoints)
	// Points multiply through uses.
	src := []byte(`<svg><defs><path id="p" d="` + strings.Repeat("1 ", 100) + `"/></defs>` + strings.Repeat(`<use href="#p"/>`, 20) + `</svg>`)
	_, err = svgbudget.CheckBytes(src, svgbudget.Limits{MaxPathPoints: 1500})
	tooComplex(t, err, svgbudget.MeasurePathPoints)
}

func TestFilterWork(t *testing.T) {
	filter := `<filter id="f"><feGaussianBlur stdDeviation="5"/><feConvolveMatrix order="9"/></filter>`
	one := []byte(`<svg width="1000" height="1000"><defs>` + filter + `</defs><rect filter="url(#f)" width="9" height="9"/></svg>`)
	m, err := svgbudget.CheckBytes(one, svgbudget.Limits{})
	if err != nil || m.FilterWork != (3+81)*1_000_000 {
		t.Fatalf("one filtered rect: %+v %v", m, err)
	}
	// Fifty uses of a filtered group, through style too, go over 1<<30.
	many := []byte(`<svg width="1000" height="1000"><defs>` + filter + `<g id="g" style="opacity:1; filter: url('#f')"><rect width="9" height="9"/></g></defs>` +
		strings.Repeat(`<use href="#g"/>`, 50) + `</svg>`)
	_, err = svgbudget.CheckBytes(many, svgbudget.Limits{})
	tooComplex(t, err, svgbudget.MeasureFilterWork)
	// Primitives no element applies cost nothing.
	m, err = svgbudget.CheckBytes([]byte(`<svg><defs>`+filter+`</defs></svg>`), svgbudget.Limits{})
	if err != nil || m.FilterWork != 0 {
		t.Fatalf("unused filter: %+v %v", m, err)
	}
}

func TestMalformed(t *testing.T) {
	for _, src := range []string{
		``, `<svg>`, `<svg></g>`, `<html/>`, `<svg><path d="&nbsp;"/></svg>`,
		`<!DOCTYPE svg [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;">]><svg><text>&b;</text></svg>`,
		`<?xml version="1.0" encoding="UTF-16"?><svg/>`,
	} {
		_, err := svgbudget.CheckBytes([]byte(src), svgbudget.Limits{})
		if !errors.Is(err, svgbudget.ErrMalformed) {
			t.Errorf("%q: err = %v, want malformed", src, err)
		}
	}
	if _, err := svgbudget.CheckBytes([]byte(`<?xml version="1.0" encoding="ISO-8859-1"?><svg><path d="M0 0"/></svg>`), svgbudget.Limits{}); err != nil {
		t.Errorf("latin-1: %v", err)
	}
	_, err := svgbudget.CheckBytes([]byte(`<svg>`+strings.Repeat(" ", 2000)+`</svg>`), svgbudget.Limits{MaxBytes: 1000})
	tooComplex(t, err, svgbudget.MeasureBytes)
}

// TestLinear: a document of many nested ids, each referenced, is measured in time linear in
// its size (a quadratic walk would take seconds here).
func TestLinear(t *testing.T) {
	var b strings.Builder
	b.WriteString(`<svg><defs>`)
	const n = 5000
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, `<g id="g%d">`, i)
	}
	for i := 0; i < n; i++ {
		b.WriteString(`</g>`)
	}
	b.WriteString(`</defs>`)
	for i := n - 1; i >= 0; i -= 1000 {
		fmt.Fprintf(&b, `<use href="#g%d"/>`, i)
	}
	b.WriteString(`</svg>`)
	_, err := svgbudget.CheckBytes([]byte(b.String()), svgbudget.Limits{MaxDepth: 100_000})
	if err != nil {
		t.Fatal(err)
	}
}

// BenchmarkNestedUse9 measures refusing the level-9 bomb (a billion paths once expanded).
func BenchmarkNestedUse9(b *testing.B) {
	src := svgtest.NestedUse(9, 10)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := svgbudget.CheckBytes(src, svgbudget.Limits{}); err == nil {
			b.Fatal("accepted")
		}
	}
}

// BenchmarkAccept measures a document within the budget: 2,000 referenced groups.
func BenchmarkAccept(b *testing.B) {
	src := svgtest.NestedUse(3, 10)
	b.ReportAllocs()
	b.SetBytes(int64(len(src)))
	for i := 0; i < b.N; i++ {
		if _, err := svgbudget.CheckBytes(src, svgbudget.Limits{}); err != nil {
			b.Fatal(err)
		}
	}
}
