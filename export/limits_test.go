package export_test

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/cutroom/cutroom/apierr"
	"github.com/cutroom/cutroom/export"
)

func TestFrameLimit(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		fps  int
		want int64
	}{
		{0, 30, 432000}, {0, 60, 864000}, {export.DefaultMaxDuration, 30, 432000}, {2 * time.Second, 30, 60},
		{1500 * time.Millisecond, 30, 45}, {time.Duration(math.MaxInt64), 240, export.MaxFrames}, {time.Hour, 0, 0},
	} {
		if got := export.FrameLimit(c.d, c.fps); got != c.want {
			t.Errorf("FrameLimit(%v, %d) = %d, want %d", c.d, c.fps, got, c.want)
		}
	}
}

func TestCheckLength(t *testing.T) {
	code := func(err error) apierr.Code {
		if e := apierr.As(err); e != nil && e.Field == "editorState" {
			return e.Code
		}
		return apierr.Code{}
	}
	if err := export.CheckLength(432000, 30, 0); err != nil {
		t.Fatalf("exactly 4 h: %v", err)
	}
	err := export.CheckLength(432001, 30, 0)
	if code(err) != export.ErrTooLong || !strings.Contains(err.Error(), "14400.033 s") || !strings.Contains(err.Error(), "14400 s (4h0m0s)") {
		t.Fatalf("4 h + 1 frame: %v", err)
	}
	// Whatever the duration limit, at most MaxFrames.
	err = export.CheckLength(export.MaxFrames+1, 240, time.Duration(math.MaxInt64))
	if code(err) != export.ErrTooLong || !strings.Contains(err.Error(), "2147483647 frames") {
		t.Fatalf("past MaxFrames: %v", err)
	}
	if err := export.CheckLength(math.MaxInt64, 30, 0); code(err) != export.ErrTooLong {
		t.Fatalf("saturated frame count: %v", err)
	}
}
