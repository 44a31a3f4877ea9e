package svgbudget_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/cutroom/cutroom/internal/svgtest"
	"github.com/cutroom/cutroom/svgbudget"
	"github.com/srwiley/oksvg"
)

// FuzzCheck feeds arbitrary documents to the budget reader: it must not panic, must answer
// quickly, and whatever it accepts (under small limits) must be a document the
// compositor's SVG library parses into no more paths than the measured elements and
// without running away (an unnoticed <use> cycle would overflow its stack).
func FuzzCheck(f *testing.F) {
	for _, s := range []string{
		string(svgtest.NestedUse(5, 10)), string(svgtest.NestedUse(2, 3)),
		`<svg><defs><g id="a"><use href="#b"/></g><g id="b"><use href="#a"/></g></defs><use href="#a"/></svg>`,
		`<svg><defs><path id="a" d="M0 0"/><use href="#a"/></defs></svg>`,
		`<svg>` + strings.Repeat("<g>", 70) + strings.Repeat("</g>", 70) + `</svg>`,
		`<svg viewBox="0 0 10 10"><defs><path id="p" d="M0 0h1v1z"/><path d="M0 0h1v1z"/></defs><use href="#p"/><use href="#p"/></svg>`,
		`<svg width="100" height="100"><filter id="f"><feConvolveMatrix order="30"/><feTurbulence numOctaves="9"/></filter><rect filter="url(#f)" style="filter:url(#f)"/></svg>`,
		`<svg><defs><linearGradient id="g"><stop id="s"/></linearGradient><g id="x"><use href="#"/></g></defs><use xlink:href="#x"/></svg>`,
		`<?xml version="1.0" encoding="ISO-8859-1"?><svg><polygon points="1,2 3,4 5.5.5-6e2"/></svg>`,
	} {
		f.Add([]byte(s))
	}
	lim := svgbudget.Limits{MaxElements: 2000, MaxPathPoints: 100_000, MaxBytes: 1 << 20}
	f.Fuzz(func(t *testing.T, b []byte) {
		start := time.Now()
		m, err := svgbudget.CheckBytes(b, lim)
		if d := time.Since(start); d > 2*time.Second {
			t.Fatalf("checking %d bytes took %v", len(b), d)
		}
		if err != nil {
			return
		}
		if m.Elements > lim.MaxElements || m.Depth > svgbudget.DefaultMaxDepth || m.PathPoints > lim.MaxPathPoints {
			t.Fatalf("accepted over the limits: %+v", m)
		}
		func() {
			defer func() { _ = recover() }() // the library's own panics are the compositor's to catch
			icon, err := oksvg.ReadIconStream(bytes.NewReader(b), oksvg.IgnoreErrorMode)
			if err == nil && int64(len(icon.SVGPaths)) > m.Elements {
				t.Fatalf("oksvg built %d paths from a document measured at %d elements", len(icon.SVGPaths), m.Elements)
			}
		}()
	})
}
