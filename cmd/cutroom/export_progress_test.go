package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestOutputFormat(t *testing.T) {
	for _, tc := range []struct {
		out, flag, want string
		bad             bool
	}{
		{"a.mp4", "", "mp4", false},
		{"a.WEBM", "", "webm", false},
		{"a.png", "", "png", false},
		{"a.mp4", "mp4", "mp4", false},
		{"a.bin", "webm", "webm", false},
		{"a.mp4", "webm", "", true},
		{"a.webm", "MP4", "", true},
		{"a", "", "", true},
		{"a.mp4", "gif", "", true},
	} {
		got, err := outputFormat(tc.out, tc.flag)
		if (err != nil) != tc.bad || got != tc.want {
			t.Errorf("outputFormat(%q, %q) = %q, %v", tc.out, tc.flag, got, err)
		}
	}
}

// fakeClock advances by step on every call.
type fakeClock struct {
	t    time.Time
	step time.Duration
}

func (c *fakeClock) now() time.Time { c.t = c.t.Add(c.step); return c.t }

func TestProgressLines(t *testing.T) {
	var b bytes.Buffer
	clk := &fakeClock{t: time.Unix(0, 0), step: 10 * time.Millisecond}
	p, err := newProgressPrinter(&b, "lines", clk.now)
	if err != nil {
		t.Fatal(err)
	}
	for i := int64(1); i <= 200; i++ {
		p.report(i, 200)
	}
	p.end()
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	// every 5% (10 frames) plus the first frame; 10 ms per frame never reaches 2 s
	if len(lines) != 21 {
		t.Errorf("%d lines, want 21:\n%s", len(lines), b.String())
	}
	if last := lines[len(lines)-1]; !strings.Contains(last, "200/200 frames (100%)") || !strings.Contains(last, "ETA 0:00") {
		t.Errorf("last line %q", last)
	}
	if strings.Contains(b.String(), "\r") {
		t.Error("plain lines contain a carriage return")
	}
	// slow frames: a line at least every 2 s even within one 5% step
	b.Reset()
	clk.step = time.Second
	p, _ = newProgressPrinter(&b, "lines", clk.now)
	for i := int64(1); i <= 10; i++ {
		p.report(i, 1000)
	}
	if n := strings.Count(b.String(), "\n"); n < 4 {
		t.Errorf("%d lines for 10 s of slow frames, want one every 2 s:\n%s", n, b.String())
	}
}

func TestProgressBar(t *testing.T) {
	var b bytes.Buffer
	clk := &fakeClock{t: time.Unix(0, 0), step: 50 * time.Millisecond}
	p, _ := newProgressPrinter(&b, "bar", clk.now)
	for i := int64(1); i <= 100; i++ {
		p.report(i, 100)
	}
	p.end()
	s := b.String()
	if !strings.HasPrefix(s, "\r[") || !strings.HasSuffix(s, "\n") || strings.Count(s, "\n") != 1 {
		t.Errorf("bar output %q", s)
	}
	if !strings.Contains(s, "[##############################] 100% 100/100 frames") || !strings.Contains(s, "fps ETA 0:00") {
		t.Errorf("final bar missing in %q", s[max(0, len(s)-120):])
	}
	// redraws are throttled to one per 100 ms (every other frame here)
	if n := strings.Count(s, "\r"); n > 51 {
		t.Errorf("%d redraws for 100 frames at 50 ms", n)
	}
	none, _ := newProgressPrinter(&b, "none", clk.now)
	b.Reset()
	none.report(1, 1)
	none.end()
	if b.Len() != 0 {
		t.Errorf("--progress none printed %q", b.String())
	}
	if _, err := newProgressPrinter(&b, "loud", clk.now); err == nil {
		t.Error("unknown mode accepted")
	}
}
