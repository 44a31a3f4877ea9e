package compositor

import (
	"testing"
)

// TestFrameCostRanksFrames checks the estimate on a timeline with still, moving, fading and
// crossfading stretches, from a Compositor with no media at all (the estimate reads no
// picture).
func TestFrameCostRanksFrames(t *testing.T) {
	b := newBuilder()
	// 0-1 s a small picture moves; 1-2 s a picture of the same size fades in; 2-3 s nothing
	// changes; at 3 s the background crossfades (0.5 s) into a second one.
	b.add(0, with(imageItem("mover", "pattern", 0, 4*sec, 10, 10, 32, 18),
		"left", an(10, [2]float64{0, 10}, [2]float64{float64(sec), 110})))
	b.add(1, with(imageItem("fader", "pattern", 0, 4*sec, 100, 60, 32, 18),
		"opacity", an(1, [2]float64{float64(sec), 0}, [2]float64{float64(2 * sec), 1})))
	b.add(2, solid("bg1", 0, 3*sec, 0, 0, tW, tH, "#112233", "rectangle"),
		solid("bg2", 3*sec, 2*sec, 0, 0, tW, tH, "#336699", "rectangle")).
		transition("x", 2, "bg1", "bg2", "fade", sec/2, "linear", nil)
	c, err := New(parseValid(t, b.json()), Options{})
	if err != nil {
		t.Fatal(err)
	}
	cost := func(n int64) float64 { return c.FrameCost(n, fps) }
	still, moving, fading, crossfade := cost(75), cost(10), cost(45), cost(90)
	if still != 1 {
		t.Errorf("a frame equal to the one before costs %v, want 1", still)
	}
	if !(moving > still && fading > moving && crossfade > fading) {
		t.Errorf("costs still %v, moving %v, fading %v, crossfade %v: want them increasing", still, moving, fading, crossfade)
	}
	if crossfade < 1+costRedrawn {
		t.Errorf("a crossfade frame costs %v, want at least %v (every pixel redrawn)", crossfade, 1+costRedrawn)
	}
	if first := cost(0); first <= crossfade {
		t.Errorf("the first frame costs %v, want more than a crossfade's %v (everything appears, pictures load)", first, crossfade)
	}
	if cost(-1) != 1 || c.FrameCost(3, 0) != 1 {
		t.Error("out-of-range frames are not cost 1")
	}

	// a slide cannot be drawn from plates: it costs more than the crossfade did
	b.transitions["x"].(map[string]any)["type"] = "slide"
	if c, err = New(parseValid(t, b.json()), Options{}); err != nil {
		t.Fatal(err)
	}
	if got := c.FrameCost(90, fps); got != crossfade+costWhole {
		t.Errorf("a slide frame costs %v, want the crossfade's %v + %v", got, crossfade, costWhole)
	}
	// an effect redraws every frame whole
	b.add(3, map[string]any{"id": "e", "type": "effect", "effectType": "blur", "intensity": 0.5,
		"startTicks": 2 * sec, "durationTicks": sec / 2, "isDraggingInTimeline": false})
	if c, err = New(parseValid(t, b.json()), Options{}); err != nil {
		t.Fatal(err)
	}
	if got := c.FrameCost(65, fps); got != 1+costRedrawn+costWhole {
		t.Errorf("a frame under an effect costs %v, want %v", got, 1+costRedrawn+costWhole)
	}
}
