package export

import (
	"strconv"
	"strings"
	"time"

	"github.com/cutroom/cutroom/apierr"
	"github.com/cutroom/cutroom/editor"
)

// DefaultMaxDuration is the longest video an export may produce when Config.MaxDuration is
// zero (the default of `cutroom serve --max-duration` and `cutroom export --max-duration`).
const DefaultMaxDuration = 4 * time.Hour

// DefaultMaxOutputSide is the longest output side in pixels an export may have when
// Config.MaxOutputSide is 0 (the default of `cutroom serve --max-output-side`); the render
// pipeline applies the same default.
const DefaultMaxOutputSide = 3840

// MaxFrames is the most frames one export renders whatever the duration limit: about 414
// days at 60 fps. It keeps every product of a frame count (samples, ticks, progress) far
// inside int64.
const MaxFrames = 1<<31 - 1

// ErrTooLong is the code of an export that would be longer than the server's duration
// limit (or MaxFrames); CheckLength raises it.
var ErrTooLong = apierr.Define(apierr.Unprocessable, "EXPORT_TOO_LONG")

// FrameLimit returns the most frames an export at fps may have under maxDuration (0 means
// DefaultMaxDuration): maxDuration x fps rounded down, at most MaxFrames.
func FrameLimit(maxDuration time.Duration, fps int) int64 {
	if maxDuration <= 0 {
		maxDuration = DefaultMaxDuration
	}
	if fps <= 0 {
		return 0
	}
	n, _ := editor.MulDiv(int64(maxDuration), int64(fps), int64(time.Second))
	return min(n, MaxFrames)
}

// CheckLength refuses an export of frames at fps that is longer than maxDuration (0 means
// DefaultMaxDuration) or MaxFrames, with ErrTooLong naming both. An export exactly at the
// limit passes.
func CheckLength(frames int64, fps int, maxDuration time.Duration) error {
	if maxDuration <= 0 {
		maxDuration = DefaultMaxDuration
	}
	limit := FrameLimit(maxDuration, fps)
	if frames <= limit {
		return nil
	}
	seconds := float64(frames) / float64(max(fps, 1))
	if limit == MaxFrames && limit < int64(maxDuration.Seconds()*float64(fps)) {
		return ErrTooLong.Field("editorState",
			"the export would last %s (%d frames at %d fps), more than the %d frames an export may have: shorten the timeline",
			fmtSeconds(seconds), frames, fps, limit)
	}
	return ErrTooLong.Field("editorState",
		"the export would last %s (%d frames at %d fps), longer than the limit of %s (%d frames): shorten the timeline",
		fmtSeconds(seconds), frames, fps, fmtSeconds(maxDuration.Seconds()), limit)
}

// fmtSeconds shows a duration in seconds and, when it fits, as hours, minutes and seconds:
// "14400 s (4h0m0s)".
func fmtSeconds(s float64) string {
	txt := strings.TrimRight(strings.TrimRight(strconv.FormatFloat(s, 'f', 3, 64), "0"), ".") + " s"
	if s < 9e9 {
		return txt + " (" + time.Duration(s*float64(time.Second)).Round(time.Millisecond).String() + ")"
	}
	return txt
}
