//go:build unix

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/cutroom/cutroom/internal/svgtest"
)

// TestExportHostileSVG: an export drawing the nested-use SVG (a file stored before uploads
// were measured, or found in an --assets directory) fails with an error naming the asset
// and the budget, promptly, in bounded memory (level 9 took 11.8 GB before and never ended),
// and leaves no output behind.
func TestExportHostileSVG(t *testing.T) {
	for _, level := range []int{5, 9} {
		t.Run(fmt.Sprintf("level%d", level), func(t *testing.T) {
			dir, fixture := writeExportFixture(t)
			if err := os.WriteFile(filepath.Join(dir, "assets", "media", "bomb.svg"), svgtest.NestedUse(level, 10), 0o644); err != nil {
				t.Fatal(err)
			}
			raw, err := os.ReadFile(fixture)
			if err != nil {
				t.Fatal(err)
			}
			const png = `"filename":"green.png","size":10,"remoteUrl":"https://example.com/x.png","remoteKey":"media/green.png","mimeType":"image/png"`
			if !strings.Contains(string(raw), png) {
				t.Fatal("the fixture state changed")
			}
			st := strings.Replace(string(raw), png, `"filename":"bomb.svg","size":1000,"remoteUrl":null,"remoteKey":"media/bomb.svg","mimeType":"image/svg+xml"`, 1)
			state := filepath.Join(dir, "bomb.json")
			if err := os.WriteFile(state, []byte(st), 0o644); err != nil {
				t.Fatal(err)
			}
			for _, out := range []string{"frame.png", "v.mp4"} {
				args := []string{"export", state, "-o", filepath.Join(dir, out), "--assets", filepath.Join(dir, "assets"), "--progress", "none"}
				if out == "frame.png" {
					args = append(args, "--frame", "0")
				}
				cmd := exec.Command(binPath, args...)
				b, err := cmd.CombinedOutput()
				if err == nil {
					t.Fatalf("%s: export succeeded:\n%s", out, b)
				}
				if !strings.Contains(string(b), `svg asset`) || !strings.Contains(string(b), "too complex") {
					t.Errorf("%s: message does not name the SVG budget: %s", out, b)
				}
				if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok && ru.Maxrss > 400<<10 {
					t.Errorf("%s: the export peaked at %d MB", out, ru.Maxrss>>10)
				}
				if _, err := os.Stat(filepath.Join(dir, out)); err == nil {
					t.Errorf("%s: left an output behind", out)
				}
			}
		})
	}
}
