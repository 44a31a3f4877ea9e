// Package svgtest is test support only (imported by _test files): small SVG documents that
// cost a reader or a renderer far more than their size, for the tests of the SVG budget,
// the compositor's cancellation and the exports that must refuse or stop them.
package svgtest

import (
	"fmt"
	"strings"
)

// NestedUse returns the hostile document of issue 15: a path, then levels groups each
// using the previous level per times, and one use of the last level. It is about 1 KB for
// 5 levels of 10 and expands to per^levels paths once a renderer follows the uses.
func NestedUse(levels, per int) []byte {
	var b strings.Builder
	b.WriteString(`<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64"><defs><path id="l0" d="M0 0L9 0L9 9z"/>`)
	for l := 1; l <= levels; l++ {
		fmt.Fprintf(&b, `<g id="l%d">`, l)
		for range per {
			fmt.Fprintf(&b, `<use href="#l%d"/>`, l-1)
		}
		b.WriteString(`</g>`)
	}
	fmt.Fprintf(&b, `</defs><use href="#l%d"/></svg>`, levels)
	return []byte(b.String())
}

// Circles returns a w x h document of n translucent circles of radius w/2 around its
// centre: well within every budget, yet slow to rasterise at a large output size (each
// circle covers the whole viewport).
func Circles(w, h, n int) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" width="%d" height="%d">`, w, h, w, h)
	for i := range n {
		fmt.Fprintf(&b, `<circle cx="%d" cy="%d" r="%d" fill="#%06x" fill-opacity="0.5"/>`, w/2+i%7, h/2, w/2, i*2654435%0xffffff)
	}
	b.WriteString(`</svg>`)
	return []byte(b.String())
}
