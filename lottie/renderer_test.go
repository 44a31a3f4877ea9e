//go:build linux

package lottie_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cutroom/cutroom/lottie"
)

// costly reads a file of testdata/costly (written by costly.py): documents that pass the
// default budgets and are costly only when drawn large, so they stay hostile whatever the
// budgets become (lottiebudget measures the document, not the size it is drawn at).
func costly(t testing.TB, name string) []byte { t.Helper(); return testdoc(t, "costly", name) }

// renderers returns the pids of this process's renderer processes.
func renderers(t testing.TB) []int {
	t.Helper()
	paths, _ := filepath.Glob("/proc/[0-9]*/stat")
	var pids []int
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		_, rest, ok := bytes.Cut(b, []byte(") "))
		f := strings.Fields(string(rest))
		if !ok || len(f) < 2 || f[1] != strconv.Itoa(os.Getpid()) {
			continue
		}
		cmd, _ := os.ReadFile(filepath.Join(filepath.Dir(p), "cmdline"))
		if bytes.HasPrefix(cmd, []byte("cutroom-lottie-renderer\x00")) {
			pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(p)))
			pids = append(pids, pid)
		}
	}
	return pids
}

// openNew opens doc and returns the animation and the pid of its renderer, the one not in
// keep.
func openNew(t *testing.T, doc []byte, o lottie.Options, keep []int) (*lottie.Animation, int) {
	t.Helper()
	a, err := lottie.Open(context.Background(), doc, o)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range renderers(t) {
		if !contains(keep, p) {
			return a, p
		}
	}
	a.Close()
	t.Fatal("no renderer process found")
	return nil, 0
}

// waitGone waits until the renderer processes not in keep have ended and been reaped.
func waitGone(t testing.TB, keep []int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var extra []int
		for _, p := range renderers(t) {
			if !contains(keep, p) {
				extra = append(extra, p)
			}
		}
		if len(extra) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("renderer processes %v still run", extra)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func contains(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// stillDraws checks that another animation opens and draws while a failed one is around:
// the failure stayed in its renderer.
func stillDraws(t *testing.T) {
	t.Helper()
	a, err := lottie.Open(context.Background(), corpus(t, "rect"), lottie.Options{})
	if err != nil {
		t.Fatalf("another animation after the failure: %v", err)
	}
	defer a.Close()
	dst := image.NewRGBA(image.Rect(0, 0, 50, 50))
	if err := a.Render(context.Background(), 0, dst); err != nil {
		t.Fatalf("another animation after the failure: %v", err)
	}
	if dst.Pix[dst.PixOffset(25, 25)+3] != 255 {
		t.Fatal("another animation after the failure: the rect is not drawn")
	}
}

// TestRendererMemoryLimit: a document that needs more memory than the renderer may map
// fails its render with a memory error; the animation keeps failing with it, its process is
// gone, and other animations draw.
func TestRendererMemoryLimit(t *testing.T) {
	keep := renderers(t)
	before := lottie.ReadStats()
	a, err := lottie.Open(context.Background(), costly(t, "mattes"), lottie.Options{Memory: 768 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	dst := image.NewRGBA(image.Rect(0, 0, 1920, 1080))
	err = a.Render(context.Background(), 0, dst)
	var re *lottie.RendererError
	if !errors.As(err, &re) || re.Reason != lottie.ReasonMemory || !errors.Is(err, lottie.ErrUnsupported) ||
		!strings.Contains(err.Error(), "memory limit (768 MiB) drawing frame 0") {
		t.Fatalf("got %v, want a memory RendererError drawing frame 0", err)
	}
	waitGone(t, keep)
	if err2 := a.Render(context.Background(), 0, dst); err2 == nil || err2.Error() != err.Error() {
		t.Fatalf("the next render: %v, want the same error", err2)
	}
	after := lottie.ReadStats()
	if after.Started != before.Started+1 || after.Failed[lottie.ReasonMemory] != before.Failed[lottie.ReasonMemory]+1 {
		t.Fatalf("stats %+v after %+v: want one renderer started and one memory failure", after, before)
	}
	stillDraws(t)
}

// TestRendererTimeLimit: a frame that takes longer than FrameSeconds fails at the limit
// (the frame itself takes about 10 s of CPU time here): its renderer is killed.
func TestRendererTimeLimit(t *testing.T) {
	keep := renderers(t)
	a, err := lottie.Open(context.Background(), costly(t, "slow"), lottie.Options{FrameSeconds: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	start := time.Now()
	err = a.Render(context.Background(), 3, image.NewRGBA(image.Rect(0, 0, 1920, 1080)))
	took := time.Since(start)
	var re *lottie.RendererError
	if !errors.As(err, &re) || re.Reason != lottie.ReasonTimeout ||
		!strings.Contains(err.Error(), "took longer than 0.5s drawing frame 3") {
		t.Fatalf("got %v, want a timeout RendererError drawing frame 3", err)
	}
	if took > 10*time.Second {
		t.Fatalf("the render returned after %v: the limit is 0.5 s", took)
	}
	waitGone(t, keep)
	stillDraws(t)
}

// TestRenderCancelKillsRenderer: when the context ends, Render returns at once with its
// error and the renderer is killed; the animation is not at fault, so the next Render
// starts another renderer and draws.
func TestRenderCancelKillsRenderer(t *testing.T) {
	keep := renderers(t)
	a, err := lottie.Open(context.Background(), costly(t, "slow"), lottie.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	before := lottie.ReadStats()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	err = a.Render(ctx, 0, image.NewRGBA(image.Rect(0, 0, 1920, 1080)))
	took := time.Since(start)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("got %v, want the context's error", err)
	}
	if took > 5*time.Second {
		t.Fatalf("the cancelled render returned after %v", took)
	}
	waitGone(t, keep)
	if s := lottie.ReadStats(); s.Failed[lottie.ReasonKilled] != before.Failed[lottie.ReasonKilled]+1 {
		t.Fatalf("killed renderers: %d, want %d", s.Failed[lottie.ReasonKilled], before.Failed[lottie.ReasonKilled]+1)
	}
	small := image.NewRGBA(image.Rect(0, 0, 40, 40))
	if err := a.Render(context.Background(), 0, small); err != nil {
		t.Fatalf("the render after the cancel: %v", err)
	}
	if small.Pix[small.PixOffset(20, 20)+3] == 0 || lottie.ReadStats().Started != before.Started+1 {
		t.Fatal("the render after the cancel did not draw in a new renderer")
	}
}

// TestRendererCrash: a renderer that dies (killed from outside here, as a crash would end
// it) fails the render with the signal; the animation keeps that error, and a new Open
// gets a new renderer.
func TestRendererCrash(t *testing.T) {
	keep := renderers(t)
	a, pid := openNew(t, corpus(t, "rect"), lottie.Options{}, keep)
	defer a.Close()
	if err := syscall.Kill(pid, syscall.SIGSEGV); err != nil {
		t.Fatal(err)
	}
	err := a.Render(context.Background(), 0, image.NewRGBA(image.Rect(0, 0, 50, 50)))
	var re *lottie.RendererError
	if !errors.As(err, &re) || re.Reason != lottie.ReasonSignal ||
		!strings.Contains(err.Error(), "crashed its renderer (signal: segmentation fault) drawing frame 0") {
		t.Fatalf("got %v, want a signal RendererError", err)
	}
	waitGone(t, keep)
	stillDraws(t)
}

// TestReviewDocuments: the security review's documents (a polystar with an outer roundness
// of 2^31 and a stroke, which rlottie takes 3 s of CPU time to draw at 100 x 100 here, or
// never finishes; a repeater of 10^9 copies, which makes it abort: in-process, the test
// binary dies with SIGABRT) are refused by the budget or fail in their renderer within its
// limits, and the process carries on.
func TestReviewDocuments(t *testing.T) {
	shape := func(shapes string) []byte {
		return []byte(`{"v":"5.7","fr":30,"ip":0,"op":10,"w":100,"h":100,"layers":[{"ty":4,"ip":0,"op":10,"st":0,"ks":{},"shapes":[` + shapes + `]}]}`)
	}
	docs := map[string][]byte{
		"polystar": shape(`{"ty":"sr","sy":1,"pt":{"a":0,"k":5},"p":{"a":0,"k":[50,50]},"r":{"a":0,"k":0},"ir":{"a":0,"k":20},` +
			`"or":{"a":0,"k":40},"is":{"a":0,"k":0},"os":{"a":0,"k":2147483648}},` +
			`{"ty":"st","c":{"a":0,"k":[1,0,0,1]},"o":{"a":0,"k":100},"w":{"a":0,"k":2}}`),
		"repeater": shape(`{"ty":"el","p":{"a":0,"k":[50,50]},"s":{"a":0,"k":[40,40]}},{"ty":"rp","c":{"a":0,"k":1e9},` +
			`"o":{"a":0,"k":0},"tr":{"ty":"tr","p":{"a":0,"k":[1,0]},"a":{"a":0,"k":[0,0]},"s":{"a":0,"k":[100,100]},` +
			`"r":{"a":0,"k":0},"so":{"a":0,"k":100},"eo":{"a":0,"k":100}}},{"ty":"fl","c":{"a":0,"k":[1,0,0,1]},"o":{"a":0,"k":100}}`),
	}
	for name, doc := range docs {
		t.Run(name, func(t *testing.T) {
			if _, err := lottie.Check(doc, lottie.Limits{}); err != nil {
				if !errors.Is(err, lottie.ErrUnsupported) {
					t.Fatalf("the budget refuses it with %v, want ErrUnsupported", err)
				}
				return // the budget keeps it from rlottie
			}
			keep := renderers(t)
			o := lottie.Options{FrameSeconds: 0.5}
			start := time.Now()
			a, err := lottie.Open(context.Background(), doc, o)
			if err == nil {
				err = a.Render(context.Background(), 0, image.NewRGBA(image.Rect(0, 0, 100, 100)))
				a.Close()
			}
			var re *lottie.RendererError
			if !errors.As(err, &re) {
				t.Fatalf("got %v, want a RendererError", err)
			}
			if took := time.Since(start); took > 15*time.Second {
				t.Fatalf("it failed after %v; the limit is 0.5 s a request", took)
			}
			t.Logf("%s: %v", name, err)
			waitGone(t, keep)
			stillDraws(t)
		})
	}
}

// TestRendererConfined: a renderer runs with no new privileges, the seccomp filter, its
// rlimits and, where the kernel has it, Landlock (Probe's report; the kernel shows no
// Landlock domain in /proc); Close ends it.
func TestRendererConfined(t *testing.T) {
	c, err := lottie.Probe(context.Background(), lottie.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Landlock < 0 || c.Seccomp != 1 {
		t.Fatalf("confinement %+v: Landlock failed or no seccomp filter", c)
	}
	if c.Landlock == 0 {
		t.Log("this kernel has no Landlock: renderers run without it")
	}
	keep := renderers(t)
	a, pid := openNew(t, corpus(t, "rect"), lottie.Options{Memory: 900 << 20, FrameSeconds: 7.5}, keep)
	status, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	limits, _ := os.ReadFile(fmt.Sprintf("/proc/%d/limits", pid))
	for _, want := range []string{"NoNewPrivs:\t1", "Seccomp:\t2"} {
		if !bytes.Contains(status, []byte(want)) {
			t.Errorf("/proc/%d/status lacks %q", pid, want)
		}
	}
	for _, want := range [][]string{
		{"Max data size", strconv.Itoa(900 << 20), strconv.Itoa(900 << 20)},
		{"Max cpu time", "", "unlimited"}, // the soft limit moves with each request
		{"Max file size", "0", "0"},
		{"Max core file size", "0", "0"},
		{"Max open files", "32", "32"},
	} {
		var line string
		for _, l := range strings.Split(string(limits), "\n") {
			if strings.HasPrefix(l, want[0]) {
				line = l
			}
		}
		f := strings.Fields(strings.TrimPrefix(line, want[0]))
		if len(f) < 2 || (want[1] != "" && f[0] != want[1]) || f[1] != want[2] {
			t.Errorf("%s: %q, want soft %q hard %q", want[0], line, want[1], want[2])
		}
	}
	a.Close()
	waitGone(t, keep)
}

// TestRenderCancelAtAnyMoment: a context that ends at any moment of a frame (before it
// starts, while it draws, as its answer comes) never leaves the animation failed: the next
// Render draws.
func TestRenderCancelAtAnyMoment(t *testing.T) {
	a, err := lottie.Open(context.Background(), corpus(t, "matte"), lottie.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	dst := image.NewRGBA(image.Rect(0, 0, 640, 360))
	start := time.Now()
	if err := a.Render(context.Background(), 0, dst); err != nil {
		t.Fatal(err)
	}
	frame := time.Since(start) // one frame, the renderer warm
	for i := range 60 {
		ctx, cancel := context.WithTimeout(context.Background(), frame*time.Duration(i)/30)
		err := a.Render(ctx, i, dst)
		cancel()
		if err != nil && !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("cancelled after %v: %v", frame*time.Duration(i)/30, err)
		}
		if err := a.Render(context.Background(), i, dst); err != nil {
			t.Fatalf("the render after a cancel at %v: %v", frame*time.Duration(i)/30, err)
		}
	}
}

// TestRendererCannotStart: a renderer that dies before its hello (here: its memory limit
// is below what its runtime needs) fails Open with a RendererError, and leaves no process
// or file descriptor behind.
func TestRendererCannotStart(t *testing.T) {
	keep := renderers(t)
	fds := func() int {
		ents, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			t.Fatal(err)
		}
		return len(ents)
	}
	if _, err := lottie.Probe(context.Background(), lottie.Options{}); err != nil { // opens what is kept
		t.Fatal(err)
	}
	before := fds()
	start := time.Now()
	_, err := lottie.Open(context.Background(), corpus(t, "rect"), lottie.Options{Memory: 8 << 20})
	var re *lottie.RendererError
	if !errors.As(err, &re) || re.Reason != lottie.ReasonMemory ||
		!strings.Contains(err.Error(), "exceeded its renderer's memory limit (8 MiB) starting") {
		t.Fatalf("got %v, want a memory RendererError starting the renderer", err)
	}
	if took := time.Since(start); took > 10*time.Second { // the limit is 20 s: the end of the process was seen
		t.Fatalf("the failed start took %v", took)
	}
	waitGone(t, keep)
	if n := fds(); n != before {
		t.Fatalf("%d file descriptors open after the failed start, %d before", n, before)
	}
}
