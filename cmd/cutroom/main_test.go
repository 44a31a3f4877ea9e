package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cutroom/cutroom/internal/pgtest"
	"github.com/cutroom/cutroom/internal/testlog"
)

// binPath is the cutroom binary built once for the process tests.
var binPath string

// repoRoot is the repository's root, from this package's directory (where tests run): the
// tests read other packages' testdata and packaging/ from it.
const repoRoot = "../.."

// testBuildTags are the build tags of the binary under test: the test's own (see
// tags_extlib_test.go), so `go test -tags extlib,pkgconfig` tests the system-libx264 build.
var testBuildTags = ""

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "cutroom-bin")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binPath = filepath.Join(dir, "cutroom")
	// go's build cache stays the user's (it follows XDG_CACHE_HOME unless GOCACHE is set:
	// every build here, this binary's and the Windows one's, would start from nothing)
	if os.Getenv("GOCACHE") == "" {
		if out, err := exec.Command("go", "env", "GOCACHE").Output(); err == nil {
			os.Setenv("GOCACHE", strings.TrimSpace(string(out)))
		}
	}
	// the font cache (app/fonts.go) of the tests and the servers they start lives in dir
	os.Setenv("XDG_CACHE_HOME", filepath.Join(dir, "cache"))
	if out, err := exec.Command("go", "build", "-tags", testBuildTags, "-o", binPath, ".").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build: %v\n%s", err, out)
		os.Exit(1)
	}
	code := pgtest.Main(m) // the PostgreSQL of the tests that use one, stopped after them
	os.RemoveAll(dir)
	os.Exit(code)
}

// serverProc is a running `cutroom serve`.
type serverProc struct {
	cmd  *exec.Cmd
	base string
	out  *bytes.Buffer
	logs *testlog.Buffer // its stderr: the log
}

var listenRE = regexp.MustCompile(`listening on (http://\S+)`)

func startServer(t *testing.T, dataDir string, args ...string) *serverProc {
	t.Helper()
	return startServerCmd(t, exec.Command(binPath, append([]string{"serve", "--addr", "127.0.0.1:0", "--data-dir", dataDir}, args...)...))
}

// startServerCmd starts cmd, a `cutroom serve` on a loopback port (the Windows build under
// Wine too), and waits for its "listening on" line.
func startServerCmd(t *testing.T, cmd *exec.Cmd) *serverProc {
	t.Helper()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p := &serverProc{cmd: cmd, out: &bytes.Buffer{}, logs: &testlog.Buffer{}}
	cmd.Stderr = p.logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	sc := bufio.NewScanner(stdout)
	deadline := time.AfterFunc(60*time.Second, func() { _ = cmd.Process.Kill() })
	defer deadline.Stop()
	for sc.Scan() {
		line := sc.Text()
		p.out.WriteString(line + "\n")
		if m := listenRE.FindStringSubmatch(line); m != nil {
			p.base = m[1]
			break
		}
	}
	if p.base == "" {
		t.Fatalf("server did not start: %s %s", p.out, p.logs)
	}
	go func() { _, _ = io.Copy(io.Discard, stdout) }()
	return p
}

func call(t *testing.T, method, url, key, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("x-api-key", key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func stateWith(n int) string {
	return fmt.Sprintf(`{"compositionWidth":1280,"compositionHeight":720,"timebaseTicksPerSecond":240000,"tracks":[{"id":"t%d","items":[],"hidden":false,"muted":false}],"assets":{},"items":{},"transitions":{},"n": %d}`, n, n)
}

var idRE = regexp.MustCompile(`"projectId":"([0-9a-f-]{36})"`)

// TestCrashKeepsAcknowledgedWrites kills the server with SIGKILL right after acknowledged
// creates and syncs, restarts it, and finds every acknowledged project with its exact state.
func TestCrashKeepsAcknowledgedWrites(t *testing.T) {
	dir := t.TempDir()
	const key = "cutroom_sk_test-key-for-crash-test"
	srv := startServer(t, dir, "--api-key", key)
	want := map[string]string{}
	for i := 0; i < 25; i++ {
		st, body := call(t, "POST", srv.base+"/v1/projects", key, `{"title":"p","editorState":`+stateWith(i)+`}`)
		if st != 201 {
			t.Fatalf("create: %d %s", st, body)
		}
		id := idRE.FindStringSubmatch(body)[1]
		want[id] = stateWith(i)
		if i%2 == 0 {
			st, body = call(t, "POST", srv.base+"/v1/projects/"+id+"/sync", key, `{"editorState":`+stateWith(1000+i)+`}`)
			if st != 200 {
				t.Fatalf("sync: %d %s", st, body)
			}
			want[id] = stateWith(1000 + i)
		}
	}
	if err := srv.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = srv.cmd.Wait()

	srv2 := startServer(t, dir, "--api-key", key)
	for id, state := range want {
		st, body := call(t, "GET", srv2.base+"/v1/projects/"+id, key, "")
		if st != 200 || !strings.Contains(body, `"editorState":`+state+`,`) {
			t.Fatalf("after crash, project %s: %d %s", id, st, body)
		}
	}
}

func TestServeFirstStartAndAdmin(t *testing.T) {
	dir := t.TempDir()
	run := func(args ...string) (string, error) {
		out, err := exec.Command(binPath, append(args, "--data-dir", dir)...).CombinedOutput()
		return string(out), err
	}
	srv := startServer(t, dir)
	// The first start prints the new key alone on a line, and it works.
	firstKey := regexp.MustCompile(`(?m)^(cutroom_sk_\S+)$`).FindStringSubmatch(srv.out.String())
	if firstKey == nil {
		t.Fatalf("first start printed no key:\n%s", srv.out)
	}
	if st, body := call(t, "GET", srv.base+"/v1/projects", firstKey[1], ""); st != 200 {
		t.Fatalf("first key: %d %s", st, body)
	}

	// While the server runs, admin commands say clearly that the data dir is in use.
	out, err := run("workspaces", "list")
	if err == nil || !strings.Contains(out, "in use by a running cutroom server") {
		t.Fatalf("admin while serving: err=%v\n%s", err, out)
	}
	// A second server on the same data dir exits with the same clear message.
	out2, err := exec.Command(binPath, "serve", "--addr", "127.0.0.1:0", "--data-dir", dir).CombinedOutput()
	if err == nil || !strings.Contains(string(out2), "in use by a running cutroom server") {
		t.Fatalf("second serve: err=%v\n%s", err, out2)
	}
	// SIGTERM shuts down gracefully with exit 0.
	if err := srv.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := srv.cmd.Wait(); err != nil {
		t.Fatalf("graceful shutdown: %v", err)
	}

	if out, err := run("workspaces", "create", "acme", "--runtime-access=false", "--webhook-secret", "s3cret"); err != nil || !strings.Contains(out, "acme") {
		t.Fatalf("workspaces create: %v %s", err, out)
	}
	out, err = run("keys", "create", "--workspace", "acme")
	if err != nil {
		t.Fatalf("keys create: %v %s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	newKey := lines[len(lines)-1]
	if !strings.HasPrefix(newKey, "cutroom_sk_") || strings.Contains(newKey, " ") {
		t.Fatalf("last line is not the key alone: %q", newKey)
	}
	out, _ = run("keys", "list", "--workspace", "acme")
	if strings.Contains(out, newKey) {
		t.Fatal("keys list shows a secret")
	}

	// The new key authenticates; its workspace has runtime access off until updated.
	srv = startServer(t, dir)
	if st, body := call(t, "GET", srv.base+"/v1/projects", newKey, ""); st != 403 || !strings.Contains(body, "OPEN_API_RUNTIME_ACCESS_FORBIDDEN") {
		t.Fatalf("runtime off: %d %s", st, body)
	}
	_ = srv.cmd.Process.Signal(syscall.SIGTERM)
	_ = srv.cmd.Wait()
	if out, err := run("workspaces", "update", "acme", "--runtime-access=true"); err != nil {
		t.Fatalf("update: %v %s", err, out)
	}
	srv = startServer(t, dir)
	if st, body := call(t, "GET", srv.base+"/v1/projects", newKey, ""); st != 200 {
		t.Fatalf("runtime on: %d %s", st, body)
	}
	if strings.Contains(srv.out.String(), "shown once") {
		t.Fatal("a restart printed a new key")
	}
}

func TestServeAPIKeyFlagAndEnv(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("CUTROOM_API_KEY", "cutroom_sk_from-the-environment-1")
	srv := startServer(t, dir)
	if st, body := call(t, "GET", srv.base+"/v1/projects", "cutroom_sk_from-the-environment-1", ""); st != 200 {
		t.Fatalf("env api key: %d %s", st, body)
	}
	if strings.Contains(srv.out.String(), "shown once") {
		t.Fatalf("printed a generated key although one was given:\n%s", srv.out)
	}
}

// exitCode is a finished command's exit status.
func exitCode(t *testing.T, err error) int {
	t.Helper()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.ExitCode()
	}
	t.Fatal(err)
	return -1
}
