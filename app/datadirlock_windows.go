//go:build windows

package app

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// lockFile takes f's exclusive lock without waiting: errLockBusy when another process
// holds it.
func lockFile(f *os.File) error {
	var ol windows.Overlapped
	err := windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, &ol)
	if errors.Is(err, windows.ERROR_LOCK_VIOLATION) {
		return errLockBusy
	}
	return err
}
