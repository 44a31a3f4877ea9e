package server

import (
	"errors"
	"strings"
	"testing"
)

// FuzzParseRange checks parseRange's promises on any header and size: no panic, either an
// error with a known code or ranges that are inside the file, ascending, neither overlapping
// nor adjacent, and at most MaxRanges; no ranges and no error only for another unit.
func FuzzParseRange(f *testing.F) {
	for _, h := range []string{"bytes=0-99", "bytes=-10", "bytes=0-", "bytes=0-0,2-2", "bytes=5-2", "items=0-1",
		"bytes=0-99999999999999999999999", "bytes=99999999999999999999-", "bytes=,,0-1, ,", "bytes=--1"} {
		f.Add(h, int64(139))
	}
	f.Fuzz(func(t *testing.T, header string, size int64) {
		if size < 0 {
			size = -(size + 1)
		}
		rs, err := parseRange(header, size)
		if err != nil {
			var re *rangeError
			if !errors.As(err, &re) || (re.code != codeRangeInvalid && re.code != codeRangeNotSatisfiable && re.code != codeRangeTooMany) || rs != nil {
				t.Fatalf("%q: error %v (%T) with ranges %v", header, err, err, rs)
			}
			return
		}
		if len(rs) > MaxRanges {
			t.Fatalf("%q: %d ranges", header, len(rs))
		}
		for i, r := range rs {
			if r.start < 0 || r.end > size || r.start >= r.end {
				t.Fatalf("%q size %d: range %d is %v", header, size, i, r)
			}
			if i > 0 && r.start <= rs[i-1].end {
				t.Fatalf("%q: ranges %v and %v overlap or touch", header, rs[i-1], r)
			}
		}
		// A result without ranges is the whole file, only for a unit other than bytes.
		if rs == nil && size > 0 {
			if u, _, ok := strings.Cut(header, "="); ok && strings.EqualFold(strings.TrimSpace(u), "bytes") {
				t.Fatalf("%q: no ranges and no error", header)
			}
		}
	})
}
