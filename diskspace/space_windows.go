package diskspace

import (
	"os"

	"golang.org/x/sys/windows"
)

// Stat returns the space of the volume that holds dir: GetDiskFreeSpaceEx's bytes free to
// this process's user (quotas applied, as statfs's f_bavail) and the volume's size.
func Stat(dir string) (Space, error) {
	p, err := windows.UTF16PtrFromString(dir)
	if err != nil {
		return Space{}, &os.PathError{Op: "GetDiskFreeSpaceEx", Path: dir, Err: err}
	}
	var free, total, totalFree uint64
	if err := windows.GetDiskFreeSpaceEx(p, &free, &total, &totalFree); err != nil {
		return Space{}, &os.PathError{Op: "GetDiskFreeSpaceEx", Path: dir, Err: err}
	}
	return Space{Free: free, Total: total}, nil
}

// fullErrnos are the errors of a write that failed for lack of space: a full volume, and
// a file over its user's quota (ERROR_HANDLE_DISK_FULL).
func fullErrnos() []error { return []error{windows.ERROR_DISK_FULL, windows.ERROR_HANDLE_DISK_FULL} }
