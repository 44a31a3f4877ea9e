package compositor

import (
	"image"
	"testing"
	"time"
)

// TestVideoLayers checks which frames are a full-frame clip (or a fade of two) with opaque
// clip rectangles above, and the rectangles, bottom to top, and the clips' media times.
func TestVideoLayers(t *testing.T) {
	full := func(id string, start int64) map[string]any { return videoClip(id, start, 0, 0, tW, tH) }
	corner := func(id string, kv ...any) map[string]any { return videoClip(id, 0, 100, 50, 48, 28, kv...) }
	cr := image.Rect(100, 50, 148, 78)
	cases := []struct {
		name  string
		b     *builder
		want  []image.Rectangle // nil: not a VideoLayers frame
		blend bool
	}{
		{"one full-frame clip", newBuilder().add(0, full("a", 0)), []image.Rectangle{}, false},
		{"a corner over a clip", newBuilder().add(0, corner("c")).add(1, full("a", 0)), []image.Rectangle{cr}, false},
		{"a corner over a fade", newBuilder().add(0, corner("c")).add(1, full("a", 0), full("b", sec)).
			transition("tr", 1, "a", "b", "fade", sec, "", nil), []image.Rectangle{cr}, true},
		{"two corners", newBuilder().add(0, videoClip("d", 0, 0, 0, 20, 10)).add(1, corner("c")).add(2, full("a", 0)),
			[]image.Rectangle{cr, image.Rect(0, 0, 20, 10)}, false},
		{"a corner at an odd left", newBuilder().add(0, videoClip("c", 0, 101, 50, 48, 28)).add(1, full("a", 0)), nil, false},
		{"a corner of odd height", newBuilder().add(0, videoClip("c", 0, 100, 50, 48, 27)).add(1, full("a", 0)), nil, false},
		{"a corner past the frame's edge", newBuilder().add(0, videoClip("c", 0, 140, 50, 48, 28)).add(1, full("a", 0)), nil, false},
		{"a corner of animated width", newBuilder().add(0, corner("c", "width", an(48, [2]float64{0, 48}, [2]float64{float64(sec * 9 / 10), 57}))).
			add(1, full("a", 0)), nil, false},
		{"a corner moving", newBuilder().add(0, corner("c", "left", an(100, [2]float64{0, 84}, [2]float64{float64(sec * 9 / 10), 102}))).
			add(1, full("a", 0)), []image.Rectangle{cr}, false},
		{"a corner at half opacity", newBuilder().add(0, corner("c", "opacity", an(0.5))).add(1, full("a", 0)), nil, false},
		{"a rotated corner", newBuilder().add(0, corner("c", "rotation", an(90))).add(1, full("a", 0)), nil, false},
		{"a cropped corner", newBuilder().add(0, corner("c", "cropLeft", an(0.1))).add(1, full("a", 0)), nil, false},
		{"a corner with rounded corners", newBuilder().add(0, corner("c", "borderRadius", an(4))).add(1, full("a", 0)), nil, false},
		{"a solid over a clip", newBuilder().add(0, solid("s", 0, sec, 4, 4, 20, 20, "#fff", "rectangle")).add(1, full("a", 0)), nil, false},
		{"a corner under a clip", newBuilder().add(0, full("a", 0)).add(1, corner("c")), nil, false},
		{"a corner over a slide", newBuilder().add(0, corner("c")).add(1, full("a", 0), full("b", sec)).
			transition("tr", 1, "a", "b", "slide", sec, "", nil), nil, false},
	}
	for _, tc := range cases {
		c, err := New(parseValid(t, tc.b.withVideoAsset().json()), Options{Media: &videoMedia{}})
		if err != nil {
			t.Fatal(err)
		}
		const frame = 24 // 0.8 s: in the fade's window, media time 1.3 s in every clip starting at 0
		vl, ok := c.VideoLayers(frame, fps)
		if ok != (tc.want != nil) || vl.Blend != tc.blend {
			t.Errorf("%s: VideoLayers %v (blend %v), want %v (%v)", tc.name, ok, vl.Blend, tc.want != nil, tc.blend)
			continue
		}
		if !ok {
			continue
		}
		if len(vl.Above) != len(tc.want) {
			t.Errorf("%s: %d clips above, want %d", tc.name, len(vl.Above), len(tc.want))
			continue
		}
		for i, r := range vl.Above {
			if r.Rect != tc.want[i] || r.Clip.Asset == nil || r.Clip.Asset.ID != "vid" || r.Clip.MediaTime != 1300*time.Millisecond {
				t.Errorf("%s: clip %d above at %v (%+v), want %v at 1.3 s", tc.name, i, r.Rect, r.Clip, tc.want[i])
			}
		}
	}
}
