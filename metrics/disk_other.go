//go:build !unix

package metrics

import "errors"

// diskSpace is not measured on systems without statfs.
func diskSpace(string) (free, total uint64, err error) {
	return 0, 0, errors.New("free disk space is measured on unix systems only")
}
