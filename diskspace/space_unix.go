//go:build unix

package diskspace

import "syscall"

// Stat returns the space of the filesystem that holds dir: statfs's f_bavail (what an
// unprivileged process may use) and its size.
func Stat(dir string) (Space, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return Space{}, err
	}
	bs := uint64(st.Bsize)
	return Space{Free: uint64(st.Bavail) * bs, Total: uint64(st.Blocks) * bs}, nil
}

// fullErrnos are the errors of a write that failed for lack of space.
func fullErrnos() []error { return []error{syscall.ENOSPC, syscall.EDQUOT} }
