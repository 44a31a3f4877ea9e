package encode

import (
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// encodeConcurrently runs one encoder per format at once, each on its own locked OS
// thread (as the export pipeline's calls end up), and closes them.
func encodeConcurrently(t *testing.T, dir string, w, h, frames int, formats ...string) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, len(formats))
	for i, f := range formats {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			wr, err := NewWriter(filepath.Join(dir, strconv.Itoa(i)+"."+f), Options{Format: f, Width: w, Height: h, FPS: 30, Threads: 2})
			if err != nil {
				errs <- err
				return
			}
			fr := NewI420(w, h)
			for k := 0; k < frames; k++ {
				for j := range fr.Y {
					fr.Y[j] = byte(j*7 + k*13)
				}
				if err := wr.WriteFrame(fr); err != nil {
					wr.Abort()
					errs <- err
					return
				}
			}
			errs <- wr.Close()
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestMallocArenasLimited: with encoders running on several threads at once, glibc's
// malloc has made no more arenas than the limit set at start-up (without it, threads that
// contend get arenas of their own, up to 8 per core).
func TestMallocArenasLimited(t *testing.T) {
	if MallocArenas() == 0 {
		t.Skip("no arena limit here: not glibc, or MALLOC_ARENA_MAX / GLIBC_TUNABLES set")
	}
	dir := t.TempDir()
	for round := 0; round < 3; round++ {
		encodeConcurrently(t, dir, 320, 180, 8, FormatMP4, FormatWebM, FormatMP4, FormatWebM)
	}
	if n := mallocHeaps(); n < 1 || n > MallocArenas() {
		t.Fatalf("malloc has %d arenas, want 1..%d", n, MallocArenas())
	}
}

// rssAnon reads the process's resident anonymous memory in bytes.
func rssAnon(t *testing.T) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skip("needs /proc/self/status")
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "RssAnon:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Skip("no RssAnon in /proc/self/status")
	return 0
}

// TestClosedEncodersReturnMemory: after rounds of 720p encoders (H.264 and VP9 at once)
// have closed, the process holds about what it held after the first round: the memory the
// encoders freed went back to the system instead of staying resident in malloc's arenas.
func TestClosedEncodersReturnMemory(t *testing.T) {
	if mallocHeaps() < 0 {
		t.Skip("not glibc")
	}
	dir := t.TempDir()
	settle := func() int64 {
		runtime.GC()
		debug.FreeOSMemory() // the Go heap's free pages too, so RSS is mostly C memory
		return rssAnon(t)
	}
	encodeConcurrently(t, dir, 1280, 720, 12, FormatMP4, FormatWebM)
	before := settle()
	for round := 0; round < 6; round++ {
		encodeConcurrently(t, dir, 1280, 720, 12, FormatMP4, FormatWebM)
	}
	after := settle()
	t.Logf("anonymous RSS after the first round %d MB, after 6 more %d MB", before>>20, after>>20)
	if after > before+24<<20 {
		t.Fatalf("anonymous RSS grew from %d MB to %d MB over 6 rounds of closed encoders", before>>20, after>>20)
	}
}
