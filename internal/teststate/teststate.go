// Package teststate is test support only (imported by _test files): editor states built to
// measure, shared by the tests of several packages.
package teststate

import (
	"strconv"
	"strings"
)

// ManySolids is a one-second 1920x1080 state of n tracks, each with one solid over most of
// the frame, rotated (1..90 degrees) and half see-through: every item is drawn and none
// hides another, so drawing a frame costs n rotated, blended fills (issue 26's heavy
// preview had 20,000). About 570 bytes an item.
func ManySolids(n int) string {
	var b strings.Builder
	b.WriteString(`{"compositionWidth":1920,"compositionHeight":1080,"timebaseTicksPerSecond":240000,"tracks":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"id":"t` + strconv.Itoa(i) + `","items":["s` + strconv.Itoa(i) + `"],"hidden":false,"muted":false}`)
	}
	b.WriteString(`],"assets":{},"items":{`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		id := "s" + strconv.Itoa(i)
		b.WriteString(`"` + id + `":{"id":"` + id + `","type":"solid","startTicks":0,"durationTicks":240000,"shape":"rectangle","color":"#ff0000",` +
			`"left":{"value":100,"keyframes":[]},"top":{"value":100,"keyframes":[]},"width":{"value":1700,"keyframes":[]},"height":{"value":900,"keyframes":[]},` +
			`"scaleX":{"value":1,"keyframes":[]},"scaleY":{"value":1,"keyframes":[]},"opacity":{"value":0.5,"keyframes":[]},` +
			`"isDraggingInTimeline":false,"borderRadius":{"value":0,"keyframes":[]},"rotation":{"value":` + strconv.Itoa(i%90+1) + `,"keyframes":[]},"keepAspectRatio":false}`)
	}
	b.WriteString(`},"transitions":{},"globalBackground":{"type":"none"},"deletedAssets":[]}`)
	return b.String()
}
