package main

import (
	"archive/zip"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/cutroom/cutroom/internal/teststate"
)

// The Windows build (`make windows`, scripts/windows.sh) run under Debian's Wine: it is
// cross-built here, so these tests run wherever that build can be made and run, amd64
// Linux; elsewhere they skip. A machine without mingw-w64 or Wine fails them: `make
// test-deps` (scripts/install-deps.sh --test) installs both.

// wineEnv is a built cutroom.exe and the Wine that runs it.
type wineEnv struct {
	exe    string   // build/windows/cutroom.exe
	loader string   // wine64
	env    []string // WINEPREFIX and the rest
}

// command is cutroom.exe with args, under Wine.
func (w *wineEnv) command(args ...string) *exec.Cmd {
	cmd := exec.Command(w.loader, append([]string{w.exe}, args...)...)
	cmd.Env = w.env
	return cmd
}

// output runs cutroom.exe with args and returns its standard output and error. They go
// through a file, not a pipe: Wine's own processes (services, explorer), started by the
// first program of a session, inherit a pipe and hold it open long after the program ends.
func (w *wineEnv) output(t *testing.T, args ...string) ([]byte, error) {
	t.Helper()
	return outputOf(t, w.command(args...))
}

// outputOf runs a Wine command and returns its standard output and error (see output).
func outputOf(t *testing.T, cmd *exec.Cmd) ([]byte, error) {
	t.Helper()
	f, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cmd.Stdout, cmd.Stderr = f, f
	err = cmd.Run()
	b, rerr := os.ReadFile(f.Name())
	if rerr != nil {
		t.Fatal(rerr)
	}
	return b, err
}

// newWine builds cutroom.exe and the zip (scripts/windows.sh: GOOS=windows go vet, the C
// libraries from ~/.cache/cutroom/windows/ once built, the Go packages from go's build
// cache), checks the zip, and readies a Wine prefix in the cache dir (created once, about
// 20 s).
func newWine(t *testing.T) *wineEnv {
	t.Helper()
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skip("the Windows build is cross-built and run under Wine on amd64 Linux only")
	}
	needFFprobe(t)
	loader := ""
	for _, c := range []string{"wine64", "/usr/lib/wine/wine64"} {
		if p, err := exec.LookPath(c); err == nil {
			loader = p
			break
		}
	}
	if loader == "" {
		t.Fatal("wine64 is not installed: make test-deps (scripts/install-deps.sh --windows)")
	}
	start := time.Now()
	out, err := exec.Command(filepath.Join(repoRoot, "scripts", "windows.sh")).Output()
	if err != nil {
		t.Fatalf("scripts/windows.sh: %v\n%s", err, tail(out, 4000))
	}
	t.Logf("cutroom.exe and its zip built in %s", time.Since(start).Round(time.Second))
	lines := strings.Fields(string(out))
	checkWindowsZip(t, filepath.Join(repoRoot, lines[len(lines)-1]))
	// beside the cross-built libraries (scripts/windows-libs.sh's CUTROOM_CACHE), not in the
	// test's XDG_CACHE_HOME (see TestMain), which is new on every run
	cache := os.Getenv("CUTROOM_CACHE")
	if cache == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			t.Fatal(err)
		}
		cache = filepath.Join(home, ".cache", "cutroom")
	}
	prefix := filepath.Join(cache, "wine")
	w := &wineEnv{exe: filepath.Join(repoRoot, "build", "windows", "cutroom.exe"), loader: loader,
		env: append(os.Environ(), "WINEPREFIX="+prefix, "WINEDEBUG=-all", "WINEDLLOVERRIDES=mscoree,mshtml=")}
	if _, err := os.Stat(filepath.Join(prefix, "system.reg")); err != nil {
		boot := exec.Command(loader, "wineboot", "--init")
		boot.Env = w.env
		if out, err := outputOf(t, boot); err != nil {
			t.Fatalf("wineboot: %v\n%s", err, tail(out, 2000))
		}
	}
	shimBCryptPrimitives(t, prefix)
	// one wineserver for the test's commands, without their pipes; stopped at the end
	server := exec.Command(filepath.Join(filepath.Dir(loader), "wineserver"), "--persistent=60")
	server.Env = w.env
	if err := server.Run(); err != nil {
		t.Fatalf("wineserver: %v", err)
	}
	t.Cleanup(func() {
		kill := exec.Command(filepath.Join(filepath.Dir(loader), "wineserver"), "--kill")
		kill.Env = w.env
		_ = kill.Run()
	})
	return w
}

// shimBCryptPrimitives puts scripts/wine/bcryptprimitives.c, built, into the prefix when
// this Wine lacks that DLL (Wine 8: Go's runtime stops at start without it).
func shimBCryptPrimitives(t *testing.T, prefix string) {
	t.Helper()
	if _, err := os.Stat("/usr/lib/x86_64-linux-gnu/wine/x86_64-windows/bcryptprimitives.dll"); err == nil {
		return
	}
	dll := filepath.Join(prefix, "drive_c", "windows", "system32", "bcryptprimitives.dll")
	out, err := exec.Command("x86_64-w64-mingw32-gcc", "-O2", "-shared", "-o", dll,
		filepath.Join(repoRoot, "scripts", "wine", "bcryptprimitives.c"), "-lbcrypt").CombinedOutput()
	if err != nil {
		t.Fatalf("building bcryptprimitives.dll for Wine: %v\n%s", err, out)
	}
}

func tail(b []byte, n int) []byte { return b[max(0, len(b)-n):] }

// checkWindowsZip: the zip holds cutroom.exe, its README, where the sources are (x264's
// among them) and the licences of cutroom, x264 and the C libraries.
func checkWindowsZip(t *testing.T, path string) {
	t.Helper()
	if !strings.HasSuffix(path, "_windows_amd64.zip") {
		t.Fatalf("scripts/windows.sh printed %q, not the zip's path", path)
	}
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	files := map[string]*zip.File{}
	for _, f := range zr.File {
		files[f.Name[strings.Index(f.Name, "/")+1:]] = f
	}
	for _, name := range []string{"cutroom.exe", "README.txt", "SOURCES.txt", "LICENSES/cutroom-GPL-2.0-or-later.txt",
		"LICENSES/go-github.com_gen2brain_x264-go-COPYING", "LICENSES/libvpx-BSD-3-Clause.txt", "LICENSES/opus-BSD-3-Clause.txt",
		"LICENSES/vo-aacenc-Apache-2.0.txt", "LICENSES/libjpeg-turbo-LICENSE.md", "LICENSES/go-BSD-3-Clause.txt"} {
		if files[name] == nil || files[name].UncompressedSize64 == 0 {
			t.Errorf("the zip lacks %s", name)
		}
	}
	if f := files["SOURCES.txt"]; f != nil {
		r, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(r)
		r.Close()
		for _, want := range []string{"github.com/gen2brain/x264-go v0.4.0", "x264c/external/x264", "libvpx_1.12.0.orig.tar.gz"} {
			if !strings.Contains(string(b), want) {
				t.Errorf("SOURCES.txt does not name %q:\n%s", want, b)
			}
		}
	}
}

// TestWindowsBuildUnderWine: cutroom.exe says what it is and what it leaves out, exports
// the reference scene to MP4 and WebM that ffprobe decodes to every frame, and serves:
// /readyz, the data dir's lock against a second server, capabilities without Lottie (an
// export using it refused with a code), and an export through the API (project, export,
// poll, download).
func TestWindowsBuildUnderWine(t *testing.T) {
	w := newWine(t)

	out, err := w.output(t, "version")
	if err != nil {
		t.Fatalf("version: %v\n%s", err, out)
	}
	for _, want := range []string{"windows/amd64", "CGO_ENABLED=1", "without:  lottie items ("} {
		if !strings.Contains(string(out), want) {
			t.Errorf("cutroom.exe version lacks %q:\n%s", want, out)
		}
	}

	t.Run("export", func(t *testing.T) {
		if out, err := exec.Command(filepath.Join(repoRoot, "bench", "make-assets.sh")).CombinedOutput(); err != nil {
			t.Fatalf("bench/make-assets.sh: %v\n%s", err, out)
		}
		dir := t.TempDir()
		for _, name := range []string{"ref.mp4", "ref.webm"} {
			dst := filepath.Join(dir, name)
			start := time.Now()
			out, err := w.output(t, "export", filepath.Join(repoRoot, "bench", "reference-scene.json"), "-o", dst,
				"--assets", filepath.Join(repoRoot, "bench", "assets"), "--scale", "0.5", "--preset", "ultrafast",
				"--progress", "none")
			if err != nil {
				t.Fatalf("export %s: %v\n%s", name, err, out)
			}
			t.Logf("%s exported in %s", name, time.Since(start).Round(100*time.Millisecond))
			codec, wd, ht, rate, frames := probeVideo(t, dst)
			want := map[string]string{"ref.mp4": "h264", "ref.webm": "vp9"}[name]
			if codec != want || wd != 960 || ht != 540 || rate != "30/1" || frames != 300 {
				t.Errorf("%s: %s %dx%d %s, %d frames; want %s 960x540 30/1, 300 frames", name, codec, wd, ht, rate, frames, want)
			}
		}
	})

	t.Run("serve", func(t *testing.T) {
		dir := t.TempDir()
		srv := startServerCmd(t, w.command("serve", "--addr", "127.0.0.1:0", "--data-dir", dir, "--api-key", exportKey))
		if st, body := call(t, "GET", srv.base+"/readyz", "", ""); st != 200 {
			t.Fatalf("/readyz: %d %s", st, body)
		}

		// bbolt's lock (LockFileEx): a second server on the data dir is refused, saying so
		second, err := w.output(t, "serve", "--addr", "127.0.0.1:0", "--data-dir", dir, "--api-key", exportKey)
		if err == nil || !strings.Contains(string(second), "in use") {
			t.Errorf("a second server on the same data dir: %v\n%s", err, second)
		}

		st, body := call(t, "GET", srv.base+"/v1/editor/capabilities", exportKey, "")
		var caps struct {
			Meta struct {
				ItemTypes []string `json:"itemTypes"`
			} `json:"meta"`
		}
		if err := json.Unmarshal([]byte(body), &caps); st != 200 || err != nil || len(caps.Meta.ItemTypes) == 0 {
			t.Fatalf("capabilities: %d %v %s", st, err, body)
		}
		for _, it := range caps.Meta.ItemTypes {
			if it == "lottie" {
				t.Errorf("capabilities list lottie items: %v", caps.Meta.ItemTypes)
			}
		}
		docs, _ := filepath.Glob(filepath.Join(repoRoot, "lottie", "testdata", "corpus", "*.json"))
		if len(docs) == 0 {
			t.Fatal("no Lottie document in lottie/testdata/corpus")
		}
		lot := teststate.Lottie(readDoc(t, docs[0]), 320, 180, 0, 180, 180)
		if st, body := call(t, "POST", srv.base+"/v1/exports", exportKey, exportBody(lot)); st != 422 || !strings.Contains(body, `"EXPORT_FEATURE_UNSUPPORTED"`) {
			t.Errorf("an export with a lottie item: %d %s, want 422 EXPORT_FEATURE_UNSUPPORTED", st, body)
		}

		state := longState(2)
		st, body = call(t, "POST", srv.base+"/v1/projects", exportKey, `{"title":"wine","editorState":`+state+`}`)
		m := idRE.FindStringSubmatch(body)
		if st != 201 || m == nil {
			t.Fatalf("create project: %d %s", st, body)
		}
		start := time.Now()
		id := createExportAt(t, srv.base+"/v1/projects/"+m[1]+"/exports", `{"fps":30,"ratio":"16:9","scale":0.6,"format":"mp4"}`)
		v := waitTask(t, srv.base, id, 3*time.Minute, func(v taskView) bool { return v.Status == "COMPLETED" })
		t.Logf("the API's export completed in %s", time.Since(start).Round(100*time.Millisecond))
		if got := downloadAndProbe(t, *v.OutputURL); got != "h264,60" {
			t.Errorf("the API's export: ffprobe says %q, want h264,60", got)
		}
	})
}
