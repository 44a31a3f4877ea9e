package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cutroom/cutroom/internal/fontsourcetest"
)

// fontsCmd runs `cutroom fonts ARGS...` and returns its combined output.
func fontsCmd(t *testing.T, args ...string) (string, error) {
	t.Helper()
	out, err := exec.Command(binPath, append([]string{"fonts"}, args...)...).CombinedOutput()
	return string(out), err
}

// TestFontsCommands: `fonts add` installs a family named in any case from the loopback
// registry (--registry), `fonts list` shows it, `fonts pack` and `fonts import` carry it to
// another data dir with the registry gone, and a family not in the catalogue fails the
// command with a message naming it.
func TestFontsCommands(t *testing.T) {
	reg := fontsourcetest.NewRegistry(t, fontsourcetest.Package{ID: "tiktok-sans", Family: "TikTok Sans", Version: "5.3.0",
		Weights: []int{400, 700}, Styles: []string{"normal"}, Subsets: []string{"latin", "latin-ext"}},
		fontsourcetest.Package{ID: "inter", Family: "Inter", Weights: []int{400, 700}, Styles: []string{"normal", "italic"}, Subsets: []string{"latin"}})
	data := t.TempDir()
	out, err := fontsCmd(t, "add", "tiktok sans", "--registry", reg.URL, "--data-dir", data, "--weights", "400", "--subsets", "latin")
	if err != nil || !strings.Contains(out, "installed TikTok Sans 5.3.0 (@fontsource/tiktok-sans): weights 400, styles normal, 1 subsets, 1 files") {
		t.Fatalf("add: %v\n%s", err, out)
	}
	out, err = fontsCmd(t, "list", "--data-dir", data, "--verify")
	if err != nil || !strings.Contains(out, "FAMILY") || !strings.Contains(out, "TikTok Sans") || !strings.Contains(out, "OFL-1.1") {
		t.Fatalf("list: %v\n%s", err, out)
	}
	out, err = fontsCmd(t, "add", "Helvetica Neue", "--registry", reg.URL, "--data-dir", data)
	if err == nil || !strings.Contains(out, `not in the web font catalogue: "Helvetica Neue"`) {
		t.Fatalf("a family not in the catalogue: %v\n%s", err, out)
	}

	pack := filepath.Join(t.TempDir(), "fonts.tar.gz")
	if out, err := fontsCmd(t, "pack", "-o", pack, "Inter", "TikTok Sans", "--registry", reg.URL); err != nil {
		t.Fatalf("pack: %v\n%s", err, out)
	}
	reg.Close()
	other := t.TempDir()
	if out, err := fontsCmd(t, "import", pack, "--data-dir", other); err != nil || !strings.Contains(out, "installed Inter") {
		t.Fatalf("import: %v\n%s", err, out)
	}
	out, err = fontsCmd(t, "list", "--json", "--data-dir", other)
	var list struct {
		Families []struct {
			Family string `json:"family"`
			Files  []struct {
				Weight int    `json:"weight"`
				Style  string `json:"style"`
			} `json:"files"`
		} `json:"families"`
	}
	if err != nil || json.Unmarshal([]byte(out), &list) != nil || len(list.Families) != 2 || list.Families[0].Family != "Inter" ||
		len(list.Families[0].Files) != 4 || len(list.Families[1].Files) != 4 {
		t.Fatalf("list --json: %v\n%s", err, out)
	}
	// A pack of the data dir's families, on the machine without the registry.
	pack2 := filepath.Join(t.TempDir(), "again.tar.gz")
	if out, err := fontsCmd(t, "pack", "--from-data-dir", "-o", pack2, "inter", "--data-dir", other); err != nil {
		t.Fatalf("pack --from-data-dir: %v\n%s", err, out)
	}
	// A corrupt pack installs nothing.
	b, _ := os.ReadFile(pack2)
	b[len(b)/2] ^= 0xff
	bad := filepath.Join(t.TempDir(), "bad.tar.gz")
	os.WriteFile(bad, b, 0o644)
	third := t.TempDir()
	if out, err := fontsCmd(t, "import", bad, "--data-dir", third); err == nil {
		t.Fatalf("corrupt pack imported:\n%s", out)
	}
	if ents, _ := os.ReadDir(third); len(ents) != 0 {
		t.Fatalf("a refused import left %v", ents)
	}
}
