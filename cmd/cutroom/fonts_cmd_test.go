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

// TestMissingFontsReported: `cutroom export` says on stderr which fontFamily no font
// provides (and still renders, with the fallback); `serve --missing-fonts` takes warn or
// refuse only, refused before the data dir is touched.
func TestMissingFontsReported(t *testing.T) {
	dir := t.TempDir()
	for family, warn := range map[string]bool{"Nowhere Grotesk": true, "Nowhere Grotesk, monospace": false, "noto serif": false} {
		item := strings.Replace(textItem, `"DejaVu Sans"`, strconvQuote(family), 1)
		state := `{"compositionWidth":320,"compositionHeight":180,"timebaseTicksPerSecond":240000,"tracks":[{"id":"t2","items":["x"],"hidden":false,"muted":false}],"assets":{},"items":{` +
			item + `},"transitions":{},"globalBackground":{"type":"color","color":"#000000","gradient":null},"deletedAssets":[]}`
		path := filepath.Join(dir, "state.json")
		if err := os.WriteFile(path, []byte(state), 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(binPath, "export", path, "--frame", "0", "-o", filepath.Join(dir, "f.png"), "--system-fonts=false").CombinedOutput()
		if err != nil {
			t.Fatalf("%q: export: %v\n%s", family, err, out)
		}
		got := strings.Contains(string(out), "warning: EXPORT_FONT_MISSING at /items/x/fontFamily: no font of this server provides the font family \"Nowhere Grotesk\"")
		if got != warn {
			t.Errorf("%q: warned %v, want %v:\n%s", family, got, warn, out)
		}
	}
	data := filepath.Join(dir, "data")
	out, err := exec.Command(binPath, "serve", "--data-dir", data, "--addr", "127.0.0.1:0", "--missing-fonts", "ignore").CombinedOutput()
	if err == nil || !strings.Contains(string(out), `--missing-fonts: "ignore": want warn or refuse`) {
		t.Fatalf("serve --missing-fonts ignore: %v\n%s", err, out)
	}
	if _, err := os.Stat(data); !os.IsNotExist(err) {
		t.Fatalf("the refused flag touched the data dir: %v", err)
	}
}

func strconvQuote(s string) string { b, _ := json.Marshal(s); return string(b) }
