//go:build unix

package metrics

import "golang.org/x/sys/unix"

// diskSpace returns the bytes free for an unprivileged process and the size of dir's file
// system.
func diskSpace(dir string) (free, total uint64, err error) {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return 0, 0, err
	}
	return st.Bavail * uint64(st.Bsize), st.Blocks * uint64(st.Bsize), nil
}
