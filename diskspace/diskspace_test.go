package diskspace_test

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"testing"

	"github.com/cutroom/cutroom/apierr"
	"github.com/cutroom/cutroom/diskspace"
)

func TestFloor(t *testing.T) {
	for _, c := range []struct {
		min   int64
		total uint64
		want  uint64
	}{
		{0, 100 << 30, 1 << 30},           // 5% of 100 GiB is 5 GiB: 1 GiB is smaller
		{0, 10 << 30, 10 << 30 / 100 * 5}, // 5% of 10 GiB is 512 MiB
		{0, 4 << 20, 4 << 20 / 100 * 5},
		{123, 10 << 30, 123},
		{-1, 10 << 30, 0},
	} {
		if got := diskspace.Floor(c.min, c.total); got != c.want {
			t.Errorf("Floor(%d, %d) = %d, want %d", c.min, c.total, got, c.want)
		}
	}
}

// A guard reads the real filesystem of its directory: a floor above the free space refuses
// with STORAGE_FULL and a Retry-After, no floor and a nil guard admit.
func TestGuardAdmit(t *testing.T) {
	dir := t.TempDir()
	sp, err := diskspace.Stat(dir)
	if err != nil || sp.Total == 0 || sp.Free > sp.Total {
		t.Fatalf("%+v %v", sp, err)
	}
	if err := diskspace.NewGuard(dir, 1).Admit(0); err != nil {
		t.Fatalf("a floor of 1 byte: %v", err)
	}
	if err := diskspace.NewGuard(dir, 1).Admit(int64(sp.Free) + 1<<40); !diskspace.CodeStorageFull.Is(err) {
		t.Fatalf("an upload larger than the free space: %v", err)
	}
	err = diskspace.NewGuard(dir, int64(sp.Total)).Admit(0)
	if e := apierr.As(err); e == nil || e.Code != diskspace.CodeStorageFull || e.RetryAfter != diskspace.RetryAfterSeconds || e.Kind() != apierr.InsufficientStorage {
		t.Fatalf("a floor above the free space: %v", err)
	}
	st, err := diskspace.NewGuard(dir, int64(sp.Total)).State()
	if err != nil || !st.Low() {
		t.Fatalf("%+v %v", st, err)
	}
	if err := diskspace.NewGuard(dir, -1).Admit(1 << 60); err != nil {
		t.Fatalf("no floor: %v", err)
	}
	var g *diskspace.Guard
	if err := g.Admit(1 << 60); err != nil {
		t.Fatalf("nil guard: %v", err)
	}
	if err := diskspace.NewGuard(dir+"/missing", 1<<60).Admit(0); err != nil {
		t.Fatalf("an unreadable filesystem admits: %v", err)
	}
}

// Refuse maps ENOSPC and EDQUOT, wrapped or flattened to text as bbolt does, and leaves
// other errors and API errors alone.
func TestRefuse(t *testing.T) {
	enospc := &os.PathError{Op: "write", Path: "/data/cutroom.db", Err: syscall.ENOSPC}
	for _, err := range []error{enospc, fmt.Errorf("commit: %w", enospc), &os.PathError{Op: "write", Err: syscall.EDQUOT},
		fmt.Errorf("file resize error: %s", syscall.ENOSPC)} {
		r := diskspace.Refuse(err)
		e := apierr.As(r)
		if e == nil || e.Code != diskspace.CodeStorageFull || e.RetryAfter != diskspace.RetryAfterSeconds {
			t.Errorf("%v: %v", err, r)
		}
		if e != nil && (e.Detail == "" || errors.Unwrap(r) != err) {
			t.Errorf("the detail or the cause: %+v", e)
		}
	}
	other := errors.New("disk on fire")
	if diskspace.Refuse(other) != other || diskspace.Refuse(nil) != nil {
		t.Error("other errors pass")
	}
	api := diskspace.CodeStorageFull.New("x")
	if wrapped := fmt.Errorf("%w: %w", api, syscall.ENOSPC); diskspace.Refuse(wrapped) != wrapped {
		t.Error("an API error passes as it is")
	}
}
