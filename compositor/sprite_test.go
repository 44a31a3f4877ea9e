package compositor

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"image"
	"math/rand/v2"
	"testing"

	"github.com/cutroom/cutroom/editor"
	"github.com/cutroom/cutroom/internal/imagetest"
)

// TestSpritesMatchDirect renders every golden case, the benchmark frame and fades under
// opaque items three times with one Compositor: the first frame draws directly, the second
// builds sprites for repeated placements and the third lays them over the frame; all use
// occlusion. Each must be byte-identical to drawing the background and every item directly.
func TestSpritesMatchDirect(t *testing.T) {
	files := testFiles(t)
	check := func(t *testing.T, c *Compositor, frame int64) {
		w, h := c.Size()
		// the reference: background and tracks with no occluders and no sprites
		ref, err := New(c.st, c.opts)
		if err != nil {
			t.Fatal(err)
		}
		first := image.NewRGBA(image.Rect(0, 0, w, h))
		if ref.st.GlobalBackground.Type == editor.BackgroundBlur {
			err = ref.RenderFrame(context.Background(), frame, fps, first)
		} else if err = ref.drawBackground(context.Background(), first, first.Rect); err == nil {
			err = ref.drawTracks(context.Background(), ref.st.FrameTicks(frame, fps), first, ref.getScratch())
		}
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 3; i++ {
			dst := image.NewRGBA(image.Rect(0, 0, w, h))
			if err := c.RenderFrame(context.Background(), frame, fps, dst); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(dst.Pix, first.Pix) {
				if err := imagetest.Compare(dst, first, 0); err != nil {
					t.Fatalf("render %d differs from drawing everything directly: %v", i+1, err)
				}
			}
		}
	}
	for _, tc := range testCases() {
		t.Run(tc.name, func(t *testing.T) {
			st, err := editor.Parse(tc.b.json())
			if err != nil {
				t.Fatal(err)
			}
			c, err := New(st, Options{Media: &testMedia{files: files}, Illustrations: testIllustrations})
			if err != nil {
				t.Fatal(err)
			}
			check(t, c, tc.frame)
		})
	}
	// a full-frame fade (half transparent) over an opaque solid and under an opaque solid (a
	// rectangle occluder) and a rotated opaque solid (a sprite occluder), with and without a
	// blur between them (no occlusion then)
	for _, blur := range []bool{false, true} {
		b := newBuilder().add(4, solid("u", 0, 2*sec, 5, 50, 60, 30, "#ffff00", "rectangle")).add(3,
			solid("a", 0, sec, 0, 0, tW, tH, "rgba(255,0,0,0.7)", "rectangle"),
			solid("b", sec, sec, 0, 0, tW, tH, "#0000ff", "rectangle")).
			transition("tr", 3, "a", "b", "fade", sec/2, "linear", nil).
			add(1, solid("o", 0, 2*sec, 20, 10, 50, 30, "#00ff00", "rectangle"),
				with(solid("r", 0, 2*sec, 90, 30, 50, 40, "#ffffff", "rectangle"), "rotation", an(20))).
			add(0, imageItem("p", "pattern", 0, 2*sec, 60, 20, 40, 30))
		if blur {
			b.add(2, map[string]any{"id": "e", "type": "effect", "effectType": "blur", "intensity": 1,
				"startTicks": 0, "durationTicks": 2 * sec, "isDraggingInTimeline": false})
		}
		t.Run(fmt.Sprintf("fade_under_opaque_blur=%v", blur), func(t *testing.T) {
			st, err := editor.Parse(b.json())
			if err != nil {
				t.Fatal(err)
			}
			c, err := New(st, Options{Media: &testMedia{files: files}, Illustrations: testIllustrations})
			if err != nil {
				t.Fatal(err)
			}
			check(t, c, fps)
			sc := &scratch{}
			if err := c.collectOccluders(context.Background(), st.FrameTicks(fps, fps), sc); err != nil {
				t.Fatal(err)
			}
			if !blur && len(sc.occ) < 3 {
				t.Errorf("%d occluders, want the solids behind and in front, the rotated solid's sprite and the image's", len(sc.occ))
			}
			if blur && len(sc.occ) != 0 {
				t.Errorf("%d occluders with a blur in the frame, want none", len(sc.occ))
			}
		})
	}
	t.Run("bench", func(t *testing.T) {
		st, imgs := benchState(t)
		c, err := New(st, Options{Media: &imageOnlyMedia{imgs}, Illustrations: testIllustrations})
		if err != nil {
			t.Fatal(err)
		}
		check(t, c, benchFrame)
		if n := len(c.sprites.m); n < 4 {
			t.Errorf("%d sprites cached for the benchmark frame, want the rotated images, the solid and the illustration", n)
		}
	})
}

// TestBlendRowMatchesLanes checks the two-lane blendRow against the four-lane formula it
// replaced, on valid premultiplied pixels at several opacities.
func TestBlendRowMatchesLanes(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	pix := func() uint32 {
		a := rnd.Uint32N(256)
		if rnd.IntN(4) == 0 {
			a = 255 * rnd.Uint32N(2)
		}
		return rnd.Uint32N(a+1) | rnd.Uint32N(a+1)<<8 | rnd.Uint32N(a+1)<<16 | a<<24
	}
	const n = 4096
	for _, ki := range []uint32{256, 255, 200, 128, 1} {
		s, d := make([]uint8, n*4), make([]uint8, n*4)
		for i := 0; i < n; i++ {
			binary.LittleEndian.PutUint32(s[i*4:], pix())
			binary.LittleEndian.PutUint32(d[i*4:], pix())
		}
		want := make([]uint8, len(d))
		for i := 0; i < n; i++ {
			sp, dp := binary.LittleEndian.Uint32(s[i*4:]), binary.LittleEndian.Uint32(d[i*4:])
			c := expand(sp)
			if ki < 256 {
				c = ((c * uint64(ki)) >> 8) & laneMask
			}
			out := dp
			if sa := c >> 48; sa != 0 {
				out = compress(c + div255Lanes(expand(dp)*(255-sa)))
			}
			binary.LittleEndian.PutUint32(want[i*4:], out)
		}
		blendRow(d, s, ki)
		if !bytes.Equal(d, want) {
			t.Fatalf("ki=%d: blendRow differs from the lane formula", ki)
		}
	}
}
