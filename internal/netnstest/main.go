package netnstest

import (
	"os"
	"testing"
)

// Main is the TestMain of a package whose tests only need the namespace (pkg names it in
// notices): it runs m's tests in a private network namespace when it can (Reexec), and
// exits with their code.
func Main(m *testing.M, pkg string) {
	if code, done := Reexec(pkg); done {
		os.Exit(code)
	}
	os.Exit(m.Run())
}
