package compositor

import (
	"context"
	"image"
	"testing"
	"time"
)

// TestVideoOnly checks which frames are one full-frame clip (or a fade of two), and that
// each such frame, drawn, is the clip frame over every pixel (the test media's frames are
// one colour, set by the media time): nothing else shows, not even at the edges. (In a
// fade the drawing's two weights may sum to 255, letting 1/256 of the background through:
// the I420 mix's weights sum to 256, one step of rounding apart.)
func TestVideoOnly(t *testing.T) {
	full := func(id string, start int64, kv ...any) map[string]any {
		return videoClip(id, start, 0, 0, tW, tH, kv...)
	}
	cases := []struct {
		name  string
		b     *builder
		want  bool
		blend bool
	}{
		{"one full-frame clip", newBuilder().add(0, full("a", 0)), true, false},
		{"a clip at half opacity", newBuilder().add(0, full("a", 0, "opacity", an(0.5))), false, false},
		{"a clip one pixel off", newBuilder().add(0, videoClip("a", 0, 1, 0, tW, tH)), false, false},
		{"a clip smaller than the frame", newBuilder().add(0, videoClip("a", 0, 0, 0, tW/2, tH/2)), false, false},
		{"a cropped clip", newBuilder().add(0, full("a", 0, "cropLeft", an(0.1))), false, false},
		{"a rotated clip", newBuilder().add(0, full("a", 0, "rotation", an(90))), false, false},
		{"a clip with rounded corners", newBuilder().add(0, full("a", 0, "borderRadius", an(8))), false, false},
		{"a solid over the clip", newBuilder().add(0, full("a", 0)).add(1, solid("s", 0, sec, 4, 4, 20, 20, "#fff", "rectangle")), false, false},
		{"a fade between two clips", newBuilder().add(0, full("a", 0), full("b", sec)).
			transition("tr", 0, "a", "b", "fade", sec, "", nil), true, true},
		{"a slide between two clips", newBuilder().add(0, full("a", 0), full("b", sec)).
			transition("tr", 0, "a", "b", "slide", sec, "", nil), false, false},
		{"a fade from a clip to a solid", newBuilder().add(0, full("a", 0), solid("b", sec, sec, 0, 0, tW, tH, "#fff", "rectangle")).
			transition("tr", 0, "a", "b", "fade", sec, "", nil), false, false},
	}
	for _, tc := range cases {
		tc.b.bg = map[string]any{"type": "color", "color": "#00ff00", "gradient": nil}
		c, err := New(parseValid(t, tc.b.withVideoAsset().json()), Options{Media: &videoMedia{}})
		if err != nil {
			t.Fatal(err)
		}
		const frame = 24 // 0.8 s: in the fade's window, 0.3 s into clip a's media time 0.5
		vf, ok := c.VideoOnly(frame, fps)
		if ok != tc.want || vf.Blend != tc.blend {
			t.Errorf("%s: VideoOnly %v (blend %v), want %v (%v)", tc.name, ok, vf.Blend, tc.want, tc.blend)
			continue
		}
		if !ok {
			continue
		}
		if vf.Clip.Asset == nil || vf.Clip.Asset.ID != "vid" || vf.Clip.MediaTime != 1300*time.Millisecond {
			t.Errorf("%s: clip %+v, want asset vid at 1.3 s", tc.name, vf.Clip)
		}
		dst := image.NewRGBA(image.Rect(0, 0, tW, tH))
		if err := c.RenderFrame(context.Background(), frame, fps, dst); err != nil {
			t.Fatal(err)
		}
		want := uint8(130) // the test media's red: media time in centiseconds
		if vf.Blend {
			// clip b starts at 1 s, 0.2 s after this frame: its media time is 0.5 - 0.2 s
			if vf.Clip2.MediaTime != 300*time.Millisecond || vf.BlendK <= 0 || vf.BlendK >= 256 {
				t.Errorf("%s: second clip %+v, weight %d", tc.name, vf.Clip2, vf.BlendK)
			}
			want = uint8((130*(256-vf.BlendK) + 30*vf.BlendK + 128) / 256)
		}
		for i := 0; i < len(dst.Pix); i += 4 {
			if r, g, b := dst.Pix[i], dst.Pix[i+1], dst.Pix[i+2]; int(r)-int(want) > 1 || int(want)-int(r) > 1 || g > 1 || b != 0 {
				t.Errorf("%s: pixel %d is %d,%d,%d, want the clip frame's %d,0,0 everywhere", tc.name, i/4, r, g, b, want)
				break
			}
		}
	}
}
