// Package dirtest is test support only (imported by _test files): what a directory holds,
// for the tests that check what a write leaves behind (no partial or temporary file).
package dirtest

import (
	"os"
	"path/filepath"
	"testing"
)

// Names lists the names in dir, sorted (os.ReadDir's order).
func Names(t testing.TB, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

// Files lists the paths of the files below dir, at any depth (none when dir is missing).
func Files(dir string) []string {
	var out []string
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			out = append(out, p)
		}
		return nil
	})
	return out
}
