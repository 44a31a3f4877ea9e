package compositor

import (
	"image/color"
	"testing"
)

func restWords(n int) []wordPaint {
	ws := make([]wordPaint, n)
	for i := range ws {
		ws[i] = wordPaint{color: color.NRGBA{200, 100, 50, 255}, scale: 1}
	}
	return ws
}

// Every animation is at rest where its window meets the rest of the item (in at p=1, out at
// p=0), so nothing jumps when the window starts or ends.
func TestCaptionAnimationsMeetRest(t *testing.T) {
	for _, kind := range captionAnimationIDs() {
		for _, c := range []struct {
			ph animPhase
			p  float64
		}{{phaseIn, 1}, {phaseOut, 0}} {
			ws := restWords(5)
			applyCaptionAnimation(kind, c.ph, c.p, 0, ws, 40)
			for i, w := range ws {
				if w != restWords(1)[0] {
					t.Errorf("%s phase %d at %v: word %d %+v, want at rest", kind, c.ph, c.p, i, w)
				}
			}
		}
	}
}

// Every in animation changes something at its start, so it is visibly drawn.
func TestCaptionAnimationsStartAway(t *testing.T) {
	for _, kind := range captionAnimationIDs() {
		ws := restWords(5)
		applyCaptionAnimation(kind, phaseIn, 0.01, 0, ws, 40)
		moved := false
		for _, w := range ws {
			if w != restWords(1)[0] {
				moved = true
			}
		}
		if !moved {
			t.Errorf("%s: no word changed at the start of in", kind)
		}
	}
}

func TestStaggerAndReveal(t *testing.T) {
	for n := 1; n < 8; n++ {
		for i := 0; i < n; i++ {
			if stagger(0, i, n) != 0 || stagger(1, i, n) != 1 {
				t.Fatalf("stagger(%d of %d) does not span 0..1", i, n)
			}
			prev := -1.0
			for p := 0.0; p <= 1; p += 0.05 {
				v := stagger(p, i, n)
				if v < prev {
					t.Fatalf("stagger(%d of %d) not monotone at %v", i, n, p)
				}
				prev = v
			}
		}
	}
	// Word i starts later than word i-1.
	if !(stagger(0.2, 0, 4) > stagger(0.2, 3, 4)) {
		t.Fatal("stagger does not delay later words")
	}
	want := map[string][]int{
		"typewriter":      {0, 1, 2, 3, 4},
		"center-type-out": {3, 1, 0, 2, 4},
		"curtain-close":   {0, 2, 4, 3, 1},
	}
	for kind, w := range want {
		got := revealRanks(kind, 5)
		for i := range w {
			if got[i] != w[i] {
				t.Fatalf("%s ranks %v, want %v", kind, got, w)
			}
		}
	}
	// Typewriter half way through 4 words shows exactly the first two.
	ws := restWords(4)
	applyCaptionAnimation("typewriter", phaseIn, 0.5, 0, ws, 40)
	if ws[0].hidden || ws[1].hidden || !ws[2].hidden || !ws[3].hidden {
		t.Fatalf("typewriter at 0.5: %+v", ws)
	}
}
