// Package fuzzseed is test support only (imported by _test files): it adds files of
// testdata to a fuzz target's seed corpus (lottiebudget's hostile documents seed the fuzz
// targets of lottiebudget, assets and lottie).
package fuzzseed

import (
	"os"
	"path/filepath"
	"testing"
)

// Files adds the bytes of every file matching pattern (a filepath.Glob pattern) to f's
// seed corpus; it fails when none matches (a moved folder would otherwise leave the
// target without its seeds) or one cannot be read.
func Files(f *testing.F, pattern string) {
	f.Helper()
	paths, err := filepath.Glob(pattern)
	if err != nil || len(paths) == 0 {
		f.Fatalf("no seed files match %s (%v)", pattern, err)
	}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
}
