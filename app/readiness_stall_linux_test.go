//go:build linux

package app_test

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cutroom/cutroom/app"
)

// stallMount mounts over dir a FUSE filesystem whose server never answers, not even the
// kernel's first request: every call that reaches it (statfs, a lookup, a create) blocks
// in the kernel, as on a hard NFS mount whose server is gone. release ends the stall: it
// closes the connection's device, so the blocked calls return (ENOTCONN), and unmounts,
// leaving dir as it was; the test's cleanup calls it too. If the test process dies, the
// kernel closes the device and the mount fails fast instead of hanging. It skips the test
// when not root or when FUSE is not there.
func stallMount(t *testing.T, dir string) (release func()) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("mounting a FUSE filesystem that stalls needs root; run the tests as root to cover a hung mount")
	}
	fd, err := syscall.Open("/dev/fuse", syscall.O_RDWR|syscall.O_CLOEXEC, 0)
	if err != nil {
		t.Skipf("no FUSE here (%v); a hung mount is not covered", err)
	}
	opts := fmt.Sprintf("fd=%d,rootmode=40000,user_id=0,group_id=0", fd)
	if err := syscall.Mount("cutroom-stall", dir, "fuse", syscall.MS_NOSUID|syscall.MS_NODEV, opts); err != nil {
		syscall.Close(fd)
		t.Skipf("cannot mount FUSE (%v); a hung mount is not covered", err)
	}
	var once sync.Once
	release = func() {
		once.Do(func() {
			syscall.Close(fd)
			if err := syscall.Unmount(dir, syscall.MNT_DETACH); err != nil {
				t.Errorf("unmount %s: %v", dir, err)
			}
		})
	}
	t.Cleanup(release)
	return release
}

// TestReadinessWithStalledFilesystems: with the data dir and the --blob-store directory on
// filesystems that stop answering (stallMount), /readyz answers 503 within its bound (2 s),
// naming dataDir (a write), diskSpace (statfs of the blob store's filesystem) and
// blobStore (a write) "not_responding"; the probes that follow while the calls are stuck
// answer at once and start no more of them (the goroutines do not grow); once the
// filesystems answer again, the next probes run the checks afresh and answer 200.
func TestReadinessWithStalledFilesystems(t *testing.T) {
	data, shared := t.TempDir(), t.TempDir()
	a := startApp(t, app.Config{DataDir: data, Blobs: app.BlobSettings{Store: shared}}, nil)
	if st, checks, failed := a.readyz(); st != 200 {
		t.Fatalf("readyz before the stall: %d %v %v", st, checks, failed)
	}
	// The database's file stays open under the mount: only new calls on the paths stall.
	releaseData, releaseShared := stallMount(t, data), stallMount(t, shared)

	stalled := func(what string) time.Duration {
		t.Helper()
		start := time.Now()
		st, checks, failed := a.readyz()
		took := time.Since(start)
		if st != 503 || strings.Join(failed, ",") != "blobStore,dataDir,diskSpace" || checks["database"] != "ok" {
			t.Fatalf("readyz %s: %d %v %v", what, st, checks, failed)
		}
		for _, c := range failed {
			if checks[c] != "not_responding" {
				t.Fatalf("readyz %s: %s is %q", what, c, checks[c])
			}
		}
		return took
	}
	took := stalled("on stalled filesystems")
	t.Logf("the first probe on stalled filesystems answered in %s", took)
	if took > 5*time.Second {
		t.Fatalf("readyz on stalled filesystems took %s", took)
	}
	before := runtime.NumGoroutine()
	for i := range 20 {
		// A probe that started its own call would wait the bound: 2 s.
		if took := stalled(fmt.Sprintf("probe %d during the stall", i)); took > time.Second {
			t.Fatalf("probe %d during the stall took %s: it waited", i, took)
		}
	}
	after := runtime.NumGoroutine()
	t.Logf("goroutines: %d before 20 probes during the stall, %d after", before, after)
	if after > before+3 {
		t.Fatalf("20 probes during the stall: %d goroutines, %d before", after, before)
	}

	releaseData()
	releaseShared()
	deadline := time.Now().Add(10 * time.Second)
	st, checks, failed := a.readyz()
	for ; st != 200 && time.Now().Before(deadline); st, checks, failed = a.readyz() {
		time.Sleep(50 * time.Millisecond)
	}
	if st != 200 || checks["dataDir"] != "ok" || checks["diskSpace"] != "ok" || checks["blobStore"] != "ok" {
		t.Fatalf("readyz once the filesystems answer again: %d %v %v", st, checks, failed)
	}
}
