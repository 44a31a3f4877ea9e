package lottiebudget_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/cutroom/cutroom/lottiebudget"
)

// TestCheckBytes: the measures, the image paths and text layers found, and the errors.
func TestCheckBytes(t *testing.T) {
	doc := `{"v":"5","fr":25,"ip":0,"op":50,"w":64,"h":32,"assets":[` +
		`{"id":"i","u":"images/","p":"a.png"},{"id":"d","p":"data:image/png;base64,AAAA","e":1},{"id":"c","layers":[{"ty":5}]}],` +
		`"layers":[{"ty":0,"refId":"c"},{"ty":4,"shapes":[{"ty":"sh","ks":{"a":1,"k":[{"t":0,"s":[{"v":[[0,0],[1,1]]}]},{"t":9,"s":[{"v":[[0,0],[1,1]]}]}]}}]}]}`
	info, err := lottiebudget.CheckBytes([]byte(doc), lottiebudget.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if info.W != 64 || info.H != 32 || info.FR != 25 || info.OP != 50 || info.TextLayers != 1 ||
		len(info.Images) != 2 || info.Images[0] != "images/a.png" || !strings.HasPrefix(info.Images[1], "data:") {
		t.Fatalf("info %+v", info)
	}
	for name, c := range map[string]struct {
		lim     lottiebudget.Limits
		measure string
	}{
		"points":    {lottiebudget.Limits{MaxPoints: 3}, "points"},
		"keyframes": {lottiebudget.Limits{MaxKeyframes: 1}, "keyframes"},
		"layers":    {lottiebudget.Limits{MaxLayers: 2}, "layers"},
		"depth":     {lottiebudget.Limits{MaxDepth: 1}, "depth"},
		"frames":    {lottiebudget.Limits{MaxFrames: 49}, "frames"},
	} {
		_, err := lottiebudget.CheckBytes([]byte(doc), c.lim)
		var tc *lottiebudget.TooComplexError
		if !errors.As(err, &tc) || tc.Measure != c.measure {
			t.Errorf("%s: %v, want a %s TooComplexError", name, err, c.measure)
		}
	}
	cycle := `{"fr":1,"ip":0,"op":1,"w":1,"h":1,"layers":[{"ty":0,"refId":"a"}],"assets":[{"id":"a","layers":[{"ty":0,"refId":"a"}]}]}`
	if _, err := lottiebudget.CheckBytes([]byte(cycle), lottiebudget.Limits{}); !errors.Is(err, lottiebudget.ErrCycle) {
		t.Errorf("cycle: %v", err)
	}
	for _, bad := range []string{`{"fr":1`, `[]`, `{"fr":1,"ip":0,"op":1,"w":1,"h":1}`, `{"fr":1,"ip":0,"op":1,"w":1,"h":1,"layers":[]} x`} {
		if _, err := lottiebudget.CheckBytes([]byte(bad), lottiebudget.Limits{}); !errors.Is(err, lottiebudget.ErrMalformed) {
			t.Errorf("%s: %v, want ErrMalformed", bad, err)
		}
	}
}

// FuzzCheckBytes: the scan never panics and what it accepts is within its limits.
func FuzzCheckBytes(f *testing.F) {
	f.Add([]byte(`{"fr":1,"ip":0,"op":1,"w":1,"h":1,"layers":[{"ty":0,"refId":"a"}],"assets":[{"id":"a","layers":[{"ty":4}]}]}`))
	f.Add([]byte(`{"fr":1,"ip":0,"op":1,"w":1,"h":1,"layers":[{"ty":4,"shapes":[{"ks":{"k":{"v":[[0,0]]}}}]}]}`))
	lim := lottiebudget.Limits{MaxLayers: 20, MaxDepth: 3, MaxKeyframes: 20, MaxPoints: 20, MaxFrames: 100}
	f.Fuzz(func(t *testing.T, b []byte) {
		info, err := lottiebudget.CheckBytes(b, lim)
		if err == nil && info.OP-info.IP > 100 {
			t.Fatalf("accepted %v frames", info.OP-info.IP)
		}
	})
}
