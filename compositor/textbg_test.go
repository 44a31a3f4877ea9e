package compositor_test

import (
	"bytes"
	"context"
	"image"
	"testing"

	"github.com/cutroom/cutroom/compositor/text"
	"github.com/cutroom/cutroom/editor"
)

// bgTextState is a 320x180 black state with one left-aligned text item with a line
// background, content s and caption animations anim ("" for none).
func bgTextState(t *testing.T, s, anim string) *editor.State {
	t.Helper()
	if anim != "" {
		anim = `,"captionAnimations":` + anim
	}
	raw := `{"compositionWidth":320,"compositionHeight":180,"timebaseTicksPerSecond":240000,
	"tracks":[{"id":"t","hidden":false,"muted":false,"items":["x"]}],"assets":{},"transitions":{},
	"globalBackground":{"type":"color","color":"#000000","gradient":null},
	"items":{"x":{"id":"x","type":"text","text":"` + s + `","color":"#ffffff","align":"left",
	"fontFamily":"Noto Sans","fontStyle":{"variant":"normal","weight":"700"},"fontSize":24,"lineHeight":1.2,
	"letterSpacing":0,"resizeOnEdit":false,"direction":"ltr","strokeWidth":0,"strokeColor":"#000000",
	"background":{"color":"#e11d48","horizontalPadding":8,"borderRadius":6},
	"startTicks":0,"durationTicks":240000,"isDraggingInTimeline":false,
	"top":{"value":40,"keyframes":[]},"left":{"value":20,"keyframes":[]},"width":{"value":280,"keyframes":[]},
	"height":{"value":100,"keyframes":[]},"scaleX":{"value":1,"keyframes":[]},"scaleY":{"value":1,"keyframes":[]},
	"opacity":{"value":1,"keyframes":[]},"rotation":{"value":0,"keyframes":[]}` + anim + `}}}`
	return checkedState(t, raw)
}

// frameOfState draws frame n of a 320x180 state with lib.
func frameOfState(t *testing.T, lib *text.Library, st *editor.State, n int64) *image.RGBA {
	t.Helper()
	c := textCompositor(t, lib, st)
	dst := image.NewRGBA(image.Rect(0, 0, 320, 180))
	if err := c.RenderFrame(context.Background(), n, 30, dst); err != nil {
		t.Fatal(err)
	}
	return dst
}

// TestLineBackgroundFollowsVisibleWords: while a typewriter has typed only some words, the
// line background covers those words only, so the frame is pixel for pixel the frame of a
// text holding just the typed words; before the first word (typewriter) or before any word
// pops (elastic-pop) there is no box at all. (The old rule kept the whole line's box, an
// empty red box beside the typed words.)
func TestLineBackgroundFollowsVisibleWords(t *testing.T) {
	lib := textLibrary(t)
	black := frameOfState(t, lib, bgTextState(t, "", ""), 0)
	typing := bgTextState(t, "Hello big world", `{"in":{"type":"typewriter","durationTicks":240000,"easing":"linear"}}`)
	for _, tc := range []struct {
		frame int64
		typed string
	}{{0, ""}, {5, "Hello"}, {15, "Hello big"}, {29, "Hello big world"}} {
		got := frameOfState(t, lib, typing, tc.frame)
		want := black
		if tc.typed != "" {
			want = frameOfState(t, lib, bgTextState(t, tc.typed, ""), 0)
		}
		if !bytes.Equal(got.Pix, want.Pix) {
			t.Errorf("frame %d: differs from the frame of %q alone", tc.frame, tc.typed)
		}
	}
	pop := bgTextState(t, "Hello big world", `{"in":{"type":"elastic-pop","durationTicks":240000,"easing":"linear"}}`)
	if got := frameOfState(t, lib, pop, 0); !bytes.Equal(got.Pix, black.Pix) {
		t.Errorf("elastic-pop before any word pops: a background is drawn")
	}
	if got := frameOfState(t, lib, pop, 29); bytes.Equal(got.Pix, black.Pix) {
		t.Errorf("elastic-pop at the end: nothing drawn")
	}
}
