package export

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestIssueCodesCoverEditor: every EDITOR_ code package editor defines has its API code in
// issueCodes, under its own name, so an invalid state is refused with the first issue's code.
func TestIssueCodesCoverEditor(t *testing.T) {
	files, err := filepath.Glob("../editor/*.go")
	if err != nil || len(files) == 0 {
		t.Fatal(files, err)
	}
	def := regexp.MustCompile(`\bCode\w+\s*=\s*"(EDITOR_[A-Z0-9_]+)"`)
	seen := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range def.FindAllStringSubmatch(string(src), -1) {
			seen++
			if c, ok := issueCodes[m[1]]; !ok || c.String() != m[1] {
				t.Errorf("%s (%s): issueCodes has %v", m[1], f, c)
			}
		}
	}
	if seen != len(issueCodes) {
		t.Errorf("package editor defines %d EDITOR_ codes, issueCodes has %d", seen, len(issueCodes))
	}
}
