package compositor_test

import (
	"context"
	"image"
	"testing"

	"github.com/cutroom/cutroom/editor"
)

// textFrameState is a 1920x1080 frame with three text items: a title, a 3-line paragraph
// with stroke and line backgrounds, and a caption-like line (issue 6's benchmark frame).
const textFrameState = `{"compositionWidth":1920,"compositionHeight":1080,"timebaseTicksPerSecond":240000,
"tracks":[{"id":"t","hidden":false,"muted":false,"items":["a","b","c"]}],"assets":{},"transitions":{},
"globalBackground":{"type":"color","color":"#1e293b","gradient":null},"items":{
"a":{"id":"a","type":"text","text":"Quarterly results","color":"#ffffff","align":"center","fontFamily":"Noto Sans","fontStyle":{"variant":"normal","weight":"700"},"fontSize":96,"lineHeight":1.2,"letterSpacing":0,"resizeOnEdit":false,"direction":"ltr","strokeWidth":0,"strokeColor":"#000000","background":null,"startTicks":0,"durationTicks":240000,"isDraggingInTimeline":false,"top":{"value":80,"keyframes":[]},"left":{"value":260,"keyframes":[]},"width":{"value":1400,"keyframes":[]},"height":{"value":130,"keyframes":[]},"scaleX":{"value":1,"keyframes":[]},"scaleY":{"value":1,"keyframes":[]},"opacity":{"value":1,"keyframes":[]},"rotation":{"value":0,"keyframes":[]}},
"b":{"id":"b","type":"text","text":"Revenue grew in every region this quarter, led by new customers in Europe and Asia, while costs stayed flat.","color":"#ffffff","align":"left","fontFamily":"Noto Sans","fontStyle":{"variant":"normal","weight":"600"},"fontSize":64,"lineHeight":1.25,"letterSpacing":0,"resizeOnEdit":false,"direction":"ltr","strokeWidth":6,"strokeColor":"#000000","background":{"color":"#e11d48","horizontalPadding":18,"borderRadius":14},"startTicks":0,"durationTicks":240000,"isDraggingInTimeline":false,"top":{"value":360,"keyframes":[]},"left":{"value":160,"keyframes":[]},"width":{"value":1500,"keyframes":[]},"height":{"value":260,"keyframes":[]},"scaleX":{"value":1,"keyframes":[]},"scaleY":{"value":1,"keyframes":[]},"opacity":{"value":1,"keyframes":[]},"rotation":{"value":0,"keyframes":[]}},
"c":{"id":"c","type":"text","text":"Source: internal reporting","color":"#cbd5e1","align":"right","fontFamily":"Noto Serif","fontStyle":{"variant":"italic","weight":"400"},"fontSize":40,"lineHeight":1.2,"letterSpacing":1,"resizeOnEdit":false,"direction":"ltr","strokeWidth":0,"strokeColor":"#000000","background":null,"startTicks":0,"durationTicks":240000,"isDraggingInTimeline":false,"top":{"value":940,"keyframes":[]},"left":{"value":960,"keyframes":[]},"width":{"value":880,"keyframes":[]},"height":{"value":60,"keyframes":[]},"scaleX":{"value":1,"keyframes":[]},"scaleY":{"value":1,"keyframes":[]},"opacity":{"value":1,"keyframes":[]},"rotation":{"value":0,"keyframes":[]}}}}`

// BenchmarkTextFrame1080p renders frames of three text items after the first (layouts, glyph
// masks and layers cached), one goroutine.
func BenchmarkTextFrame1080p(b *testing.B) {
	st, err := editor.Parse([]byte(textFrameState))
	if err != nil {
		b.Fatal(err)
	}
	c := textCompositor(b, textLibrary(b), st)
	dst := image.NewRGBA(image.Rect(0, 0, 1920, 1080))
	ctx := context.Background()
	for i := int64(0); i < 2; i++ { // the first frames fill the caches
		if err := c.RenderFrame(ctx, i, 30, dst); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := c.RenderFrame(ctx, int64(2+i%20), 30, dst); err != nil {
			b.Fatal(err)
		}
	}
}
