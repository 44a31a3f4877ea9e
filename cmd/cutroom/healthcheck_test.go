package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// `cutroom healthcheck` exits 0 when the server's /readyz answers 200, 1 when it answers
// 503 (here: a free-disk floor no disk meets) or nothing answers; --addr comes from
// CUTROOM_ADDR like serve's.
func TestHealthcheckCommand(t *testing.T) {
	probe := func(env []string, args ...string) (string, int) {
		t.Helper()
		cmd := exec.Command(binPath, append([]string{"healthcheck", "--timeout", "5s"}, args...)...)
		cmd.Env = append(cmd.Environ(), env...)
		out, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return string(out), code
	}
	ready := startServer(t, t.TempDir())
	addr := strings.TrimPrefix(ready.base, "http://")
	if out, code := probe([]string{"CUTROOM_ADDR=" + addr}); code != 0 || !strings.Contains(out, `200 {"status":"ready"`) {
		t.Errorf("ready server: exit %d\n%s", code, out)
	}
	if out, code := probe(nil, "--addr", addr, "--live"); code != 0 || !strings.Contains(out, "/healthz: 200") {
		t.Errorf("--live: exit %d\n%s", code, out)
	}
	low := startServer(t, t.TempDir(), "--min-free-disk", "1000000000000000000")
	lowAddr := strings.TrimPrefix(low.base, "http://")
	if out, code := probe(nil, "--addr", lowAddr); code != 1 || !strings.Contains(out, "503") || !strings.Contains(out, "diskSpace") {
		t.Errorf("server below its disk floor: exit %d\n%s", code, out)
	}
	if out, code := probe(nil, "--addr", lowAddr, "--live"); code != 0 {
		t.Errorf("--live on a not-ready server: exit %d\n%s", code, out)
	}
	low.cmd.Process.Kill()
	low.cmd.Wait()
	if out, code := probe(nil, "--addr", lowAddr); code != 1 {
		t.Errorf("no server: exit %d\n%s", code, out)
	}
}

func TestProbeURL(t *testing.T) {
	for addr, want := range map[string]string{
		"127.0.0.1:8787": "http://127.0.0.1:8787/readyz",
		"0.0.0.0:80":     "http://127.0.0.1:80/readyz",
		":9000":          "http://127.0.0.1:9000/readyz",
		"[::]:8787":      "http://[::1]:8787/readyz",
		"10.0.0.5:8787":  "http://10.0.0.5:8787/readyz",
	} {
		if got, err := probeURL(addr, "/readyz"); err != nil || got != want {
			t.Errorf("probeURL(%q) = %q, %v; want %q", addr, got, err, want)
		}
	}
	if _, err := probeURL("8787", "/readyz"); err == nil {
		t.Error("probeURL(8787): no error")
	}
}

// packaging/cutroom.default, the package's /etc/default/cutroom, names the CUTROOM_*
// variable of every serve flag (and the global ones), so no setting is missing there.
func TestDefaultFileListsEveryServeSetting(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repoRoot, "packaging", "cutroom.default"))
	if err != nil {
		t.Fatal(err)
	}
	root := newRootCmd()
	serve, _, err := root.Find([]string{"serve"})
	if err != nil {
		t.Fatal(err)
	}
	check := func(f *pflag.Flag) {
		if f.Name == "help" {
			return
		}
		env := "CUTROOM_" + strings.ToUpper(strings.ReplaceAll(f.Name, "-", "_"))
		if !regexp.MustCompile(`(?m)\b` + env + `\b`).Match(b) {
			t.Errorf("packaging/cutroom.default does not mention %s (--%s)", env, f.Name)
		}
	}
	serve.Flags().VisitAll(check)
	root.PersistentFlags().VisitAll(check)
}
