package export_test

import (
	"testing"

	"github.com/cutroom/cutroom/export"
)

func TestBilled(t *testing.T) {
	cases := []struct {
		name    string
		seconds float64
		w, h    int
		fps     int
		want    int64
	}{
		{"1080p30 is the standard", 10, 1920, 1080, 30, 10},
		{"60 fps costs double", 10, 1920, 1080, 60, 20},
		{"4K is four times 1080p", 10, 3840, 2160, 30, 40},
		{"720p is 4/9 of 1080p, rounded up", 10, 1280, 720, 30, 5},
		{"tiny outputs pay the 0.25 floor", 10, 384, 216, 30, 3},
		{"at least one second", 0.1, 640, 360, 30, 1},
		{"exact products do not round up", 9, 1920, 1080, 30, 9},
	}
	for _, c := range cases {
		if got := export.Billed(c.seconds, c.w, c.h, c.fps); got != c.want {
			t.Errorf("%s: Billed(%v, %dx%d@%d) = %d, want %d", c.name, c.seconds, c.w, c.h, c.fps, got, c.want)
		}
	}
}
