//go:build unix

package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cutroom/cutroom/app"
)

// readReady reads lines from r until a JSON ready object ({"event":"ready"}); every line
// before it must be a JSON object too (--log-format json's stdout is JSON lines only).
func readReady(t *testing.T, r io.Reader) readyObject {
	t.Helper()
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		var obj readyObject
		if err := json.Unmarshal(sc.Bytes(), &obj); err != nil {
			t.Fatalf("stdout line is not JSON: %q", sc.Text())
		}
		if obj.Event == "ready" {
			return obj
		}
	}
	t.Fatalf("no ready object (%v)", sc.Err())
	return readyObject{}
}

// needPython skips a test whose parent process is a Python program when there is no python3.
func needPython(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3")
	}
}

// killOnCleanup kills pid (a server that is not this test's child) when the test ends.
func killOnCleanup(t *testing.T, pid int) {
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
}

// TestServeReadyObject: --ready-fd, --ready-file and the JSON line of --log-format json each
// get one ready object once the server answers; the data dir records the server, so a
// second start names it and --attach announces it instead; a clean exit removes the
// record; a taken port hints at :0.
func TestServeReadyObject(t *testing.T) {
	dir := t.TempDir()
	readyFile := filepath.Join(t.TempDir(), "ready.json")
	fdR, fdW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer fdR.Close()
	cmd := exec.Command(binPath, "serve", "--addr", "127.0.0.1:0", "--data-dir", dir, "--log-format", "json",
		"--api-key", exportKey, "--ready-fd", "3", "--ready-file", readyFile)
	cmd.ExtraFiles = []*os.File{fdW}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	fdW.Close()

	// The fd gets one line and is closed: the read ends.
	fromFD, err := io.ReadAll(fdR)
	if err != nil {
		t.Fatal(err)
	}
	var ready readyObject
	if err := json.Unmarshal(fromFD, &ready); err != nil || strings.Count(string(fromFD), "\n") != 1 {
		t.Fatalf("--ready-fd got %q: %v", fromFD, err)
	}
	// It answers at once: no wait between reading the object and the first request.
	if st, body := call(t, "GET", ready.URL+ready.Health, "", ""); st != 200 {
		t.Fatalf("GET %s%s right after ready: %d %s", ready.URL, ready.Health, st, body)
	}
	if st, body := call(t, "GET", ready.URL+ready.API+"/projects", exportKey, ""); st != 200 {
		t.Fatalf("GET projects: %d %s", st, body)
	}
	abs, _ := filepath.Abs(dir)
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(ready.URL, "http://"))
	if ready.Event != "ready" || ready.PID != cmd.Process.Pid || ready.DataDir != abs || ready.Version == "" ||
		port == "0" || port != strconv.Itoa(ready.Port) || ready.Socket != "" || ready.Attached ||
		ready.Readiness != "/readyz" || ready.API != "/v1" {
		t.Fatalf("ready object: %+v (pid %d, data dir %s)", ready, cmd.Process.Pid, abs)
	}
	if got := readReady(t, stdout); got != ready {
		t.Fatalf("stdout's ready line %+v, the fd's %+v", got, ready)
	}
	go func() { _, _ = io.Copy(io.Discard, stdout) }()
	var fromFile readyObject
	if b, err := os.ReadFile(readyFile); err != nil || json.Unmarshal(b, &fromFile) != nil || fromFile != ready {
		t.Fatalf("--ready-file: %s %v", b, err)
	}
	if rec, err := app.ReadListening(dir); err != nil || rec != ready.Listening {
		t.Fatalf("the data dir's record %+v (%v), the ready object's %+v", rec, err, ready.Listening)
	}

	// A second start on the data dir fails naming the running server and --attach.
	out, err := exec.Command(binPath, "serve", "--addr", "127.0.0.1:0", "--data-dir", dir).CombinedOutput()
	if exitCode(t, err) != 1 || !strings.Contains(string(out), ready.URL) ||
		!strings.Contains(string(out), "pid "+strconv.Itoa(ready.PID)) || !strings.Contains(string(out), "--attach") {
		t.Fatalf("second serve: %v\n%s", err, out)
	}
	// With --attach it announces the running server, to the same places, and exits 0.
	attachFile := filepath.Join(t.TempDir(), "attach.json")
	out, err = exec.Command(binPath, "serve", "--addr", "127.0.0.1:0", "--data-dir", dir, "--attach",
		"--log-format", "json", "--ready-file", attachFile).Output()
	if exitCode(t, err) != 0 {
		t.Fatalf("serve --attach: %v\n%s", err, out)
	}
	attached := readReady(t, strings.NewReader(string(out)))
	want := ready
	want.Attached = true
	var fromAttachFile readyObject
	if b, err := os.ReadFile(attachFile); attached != want || err != nil || json.Unmarshal(b, &fromAttachFile) != nil || fromAttachFile != want {
		t.Fatalf("--attach announced %+v and wrote %+v, want %+v", attached, fromAttachFile, want)
	}

	// A port in use: the error hints at port 0.
	out, err = exec.Command(binPath, "serve", "--addr", strings.TrimPrefix(ready.URL, "http://"), "--data-dir", t.TempDir()).CombinedOutput()
	if exitCode(t, err) != 1 || !strings.Contains(string(out), "address already in use") || !strings.Contains(string(out), "--addr 127.0.0.1:0") {
		t.Fatalf("serve on a taken port: %v\n%s", err, out)
	}

	// A clean exit removes the record; the next start has none to report.
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("graceful shutdown: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, app.ServerFile)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("%s after a clean exit: %v", app.ServerFile, err)
	}
}

// underParent starts a server as the child of a parent process (argv: the parent's command,
// which runs the server command that follows it) and returns the parent, the server's
// ready object and the parent's stdout, which the server shares: it reaches its end when
// both have ended. The server's stderr goes to stderrFile.
func underParent(t *testing.T, parent []string, stderrFile string, serveArgs ...string) (*exec.Cmd, readyObject, io.Reader) {
	t.Helper()
	serve := append([]string{binPath, "serve", "--addr", "127.0.0.1:0", "--log-format", "json"}, serveArgs...)
	cmd := exec.Command(parent[0], append(parent[1:], serve...)...)
	errf, err := os.Create(stderrFile)
	if err != nil {
		t.Fatal(err)
	}
	defer errf.Close()
	// Files, inherited as they are: exec copies nothing, and the pipe's end is the end of
	// both processes (Wait does not close it, as it would a StdoutPipe).
	cmd.Stderr = errf
	stdout, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdout.Close() })
	cmd.Stdout = w
	err = cmd.Start()
	w.Close()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	// A parent whose server never gets ready (it failed: the parent lives on) fails the test.
	unstick := time.AfterFunc(30*time.Second, func() { _ = stdout.Close() })
	br := bufio.NewReader(stdout)
	ready := readReady(t, br)
	unstick.Stop()
	killOnCleanup(t, ready.PID)
	return cmd, ready, br
}

// The parents: a shell that runs the server in the background with --parent-pid its own
// pid, and a Python program that holds the server's stdin (--exit-on-stdin-eof), as an app
// would. Each waits for ever; the tests kill it.
var (
	shellParent  = []string{"sh", "-c", `"$@" --parent-pid $$ & wait`, "sh"}
	pythonParent = []string{"python3", "-c", `import subprocess, sys, time
subprocess.Popen(sys.argv[1:] + ["--exit-on-stdin-eof"], stdin=subprocess.PIPE)
time.sleep(3600)`}
)

// killParent kills parent with SIGKILL and returns how long its server took to exit (its
// stdout reached its end); it fails the test past 10 s.
func killParent(t *testing.T, parent *exec.Cmd, stdout io.Reader) time.Duration {
	t.Helper()
	ended := make(chan time.Time, 1)
	go func() { _, _ = io.Copy(io.Discard, stdout); ended <- time.Now() }()
	start := time.Now()
	if err := parent.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = parent.Wait()
	select {
	case at := <-ended:
		t.Logf("the server exited %s after its parent was killed", at.Sub(start))
		return at.Sub(start)
	case <-time.After(10 * time.Second):
		t.Fatal("the server still runs 10 s after its parent was killed")
		return 0
	}
}

// checkGracefulExit checks that the server went through serve's shutdown: it logged it,
// and the data dir's record of the server is gone (a killed server leaves it).
func checkGracefulExit(t *testing.T, dir, stderrFile, cause string) {
	t.Helper()
	logs, _ := os.ReadFile(stderrFile)
	if !strings.Contains(string(logs), `"msg":"shutting down"`) {
		t.Errorf("no graceful shutdown logged:\n%s", logs)
	}
	if cause != "" && !strings.Contains(string(logs), cause) {
		t.Errorf("the shutdown's cause (%s) is not logged:\n%s", cause, logs)
	}
	if _, err := os.Stat(filepath.Join(dir, app.ServerFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s left after the shutdown: %v", app.ServerFile, err)
	}
}

// TestServeEndsWithItsShellParent: a shell started the server with --parent-pid $$ and is
// killed with SIGKILL; the server shuts down gracefully within a second, and the next start
// on the data dir succeeds.
func TestServeEndsWithItsShellParent(t *testing.T) {
	dir := t.TempDir()
	logs := filepath.Join(t.TempDir(), "stderr")
	parent, ready, stdout := underParent(t, shellParent, logs, "--data-dir", dir, "--api-key", exportKey)
	if st, body := call(t, "GET", ready.URL+"/v1/projects", exportKey, ""); st != 200 {
		t.Fatalf("GET projects: %d %s", st, body)
	}
	if took := killParent(t, parent, stdout); took > time.Second {
		t.Fatalf("the server exited %s after its parent was killed, want within 1 s", took)
	}
	checkGracefulExit(t, dir, logs, "")
	startServer(t, dir, "--api-key", exportKey)
}

// TestServeEndsWithTheParentHoldingItsStdin: a Python parent holds the server's stdin
// (--exit-on-stdin-eof) and is killed with SIGKILL while a render runs; the server shuts
// down gracefully within a second, the render is recorded PAUSED, and the next start
// resumes it to COMPLETED.
func TestServeEndsWithTheParentHoldingItsStdin(t *testing.T) {
	needFFprobe(t)
	needPython(t)
	dir := t.TempDir()
	logs := filepath.Join(t.TempDir(), "stderr")
	parent, ready, stdout := underParent(t, pythonParent, logs, "--data-dir", dir, "--api-key", exportKey, "--render-workers", "1")
	id := createExport(t, ready.URL, longState(60))
	waitTask(t, ready.URL, id, 60*time.Second, func(v taskView) bool { return v.Status == "PROCESSING" && v.Progress > 2 })
	if took := killParent(t, parent, stdout); took > time.Second {
		t.Fatalf("the server exited %s after its parent was killed, want within 1 s", took)
	}
	checkGracefulExit(t, dir, logs, "--exit-on-stdin-eof")
	checkPausedThenResumed(t, dir, id)
}

// A --parent-pid that names no process is refused at start.
func TestServeParentPIDMustExist(t *testing.T) {
	p := exec.Command("true")
	if err := p.Run(); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(binPath, "serve", "--addr", "127.0.0.1:0", "--data-dir", t.TempDir(),
		"--parent-pid", strconv.Itoa(p.Process.Pid)).CombinedOutput()
	if exitCode(t, err) != 1 || !strings.Contains(string(out), "--parent-pid "+strconv.Itoa(p.Process.Pid)+": no such process") {
		t.Fatalf("serve --parent-pid of an ended process: %v\n%s", err, out)
	}
}

// TestServeEndsWithAProcessNotItsParent: --parent-pid names a process that is not the
// server's parent (no parent-death signal): the poll sees it end, a zombie not yet waited
// for included, within a second.
func TestServeEndsWithAProcessNotItsParent(t *testing.T) {
	appProc := exec.Command("sleep", "3600")
	if err := appProc.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = appProc.Process.Kill(); _ = appProc.Wait() })
	dir := t.TempDir()
	srv := startServer(t, dir, "--parent-pid", strconv.Itoa(appProc.Process.Pid))
	exited := make(chan error, 1)
	go func() { exited <- srv.cmd.Wait() }()
	// killed and not waited for: a zombie until the test's cleanup
	if err := appProc.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	select {
	case err := <-exited:
		t.Logf("the server exited %s after the process was killed", time.Since(start))
		if err != nil {
			t.Fatalf("serve: %v", err)
		}
	case <-time.After(time.Second):
		t.Fatal("the server still runs 1 s after its --parent-pid process was killed")
	}
	if _, err := os.Stat(filepath.Join(dir, app.ServerFile)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("%s after the shutdown: %v", app.ServerFile, err)
	}
}

// TestServeUnixSocket: --addr unix:PATH serves on a socket only its user may open (0600),
// named by the ready object; the client commands reach it; a live socket is refused, a
// killed server's stale one replaced, a file that is not a socket left alone, and a clean
// exit removes the socket.
func TestServeUnixSocket(t *testing.T) {
	const admin = "admin-token-of-the-socket-test"
	sockDir := t.TempDir()
	sock := filepath.Join(sockDir, "cutroom.sock")
	dir := t.TempDir()
	readyFile := filepath.Join(t.TempDir(), "ready.json")
	serve := func(dataDir string, args ...string) *exec.Cmd {
		cmd := exec.Command(binPath, append([]string{"serve", "--addr", "unix:" + sock, "--data-dir", dataDir,
			"--api-key", exportKey, "--admin-token", admin, "--ready-file", readyFile}, args...)...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		return cmd
	}
	waitReady := func(cmd *exec.Cmd) readyObject {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for {
			var r readyObject
			if b, err := os.ReadFile(readyFile); err == nil {
				if err := json.Unmarshal(b, &r); err != nil {
					t.Fatalf("ready file %q: %v", b, err)
				}
				if r.PID == cmd.Process.Pid {
					return r
				}
			}
			if time.Now().After(deadline) {
				t.Fatal("no ready object")
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	srv := serve(dir)
	ready := waitReady(srv)
	if ready.Socket != sock || ready.URL != app.UnixURL(sock) || ready.Port != 0 || !strings.HasPrefix(ready.URL, "http+unix://%2F") {
		t.Fatalf("ready object on a socket: %+v", ready)
	}
	if fi, err := os.Stat(sock); err != nil || fi.Mode()&os.ModeSocket == 0 || fi.Mode().Perm() != 0o600 {
		t.Fatalf("socket %s: %v %v", sock, fi.Mode(), err)
	}
	if rec, err := app.ReadListening(dir); err != nil || rec != ready.Listening {
		t.Fatalf("the data dir's record %+v (%v), the ready object's %+v", rec, err, ready.Listening)
	}

	// The API over the socket, as curl --unix-socket sends it, and the client commands.
	out, err := exec.Command("curl", "-sS", "--unix-socket", sock, "-H", "x-api-key: "+exportKey,
		"-d", `{"title":"over a socket","editorState":`+stateWith(1)+`}`, "http://localhost/v1/projects").CombinedOutput()
	if err != nil || !strings.Contains(string(out), `"projectId"`) {
		t.Fatalf("create a project over the socket: %v %s", err, out)
	}
	if out, err := exec.Command(binPath, "healthcheck", "--addr", "unix:"+sock).CombinedOutput(); err != nil || !strings.Contains(string(out), "200") {
		t.Fatalf("healthcheck --addr unix: %v %s", err, out)
	}
	for _, target := range []string{"unix:" + sock, ready.URL} {
		backup := filepath.Join(t.TempDir(), "backup.db")
		if out, err := exec.Command(binPath, "backup", "-o", backup, "--server", target, "--admin-token", admin).CombinedOutput(); err != nil || !strings.Contains(string(out), "checked") {
			t.Fatalf("backup --server %s: %v %s", target, err, out)
		}
	}

	// A second server on the live socket is refused, and the first still serves.
	out, err = exec.Command(binPath, "serve", "--addr", "unix:"+sock, "--data-dir", t.TempDir()).CombinedOutput()
	if exitCode(t, err) != 1 || !strings.Contains(string(out), "a server listens on this socket already") {
		t.Fatalf("serve on a live socket: %v %s", err, out)
	}
	if out, err := exec.Command(binPath, "healthcheck", "--addr", "unix:"+sock, "--live").CombinedOutput(); err != nil {
		t.Fatalf("the first server after the refused second: %v %s", err, out)
	}

	// Killed, the server leaves its socket; the next start replaces it.
	_ = srv.Process.Signal(syscall.SIGKILL)
	_ = srv.Wait()
	if _, err := os.Lstat(sock); err != nil {
		t.Fatalf("a killed server's socket: %v", err)
	}
	srv = serve(dir)
	waitReady(srv)
	if out, err := exec.Command(binPath, "healthcheck", "--addr", "unix:"+sock).CombinedOutput(); err != nil {
		t.Fatalf("healthcheck after the stale socket was replaced: %v %s", err, out)
	}
	// A clean exit removes the socket.
	_ = srv.Process.Signal(syscall.SIGTERM)
	if err := srv.Wait(); err != nil {
		t.Fatalf("graceful shutdown: %v", err)
	}
	if _, err := os.Lstat(sock); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the socket after a clean exit: %v", err)
	}

	// A file that is not a socket is never replaced.
	if err := os.WriteFile(sock, []byte("keep"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err = exec.Command(binPath, "serve", "--addr", "unix:"+sock, "--data-dir", dir).CombinedOutput()
	if b, _ := os.ReadFile(sock); exitCode(t, err) != 1 || !strings.Contains(string(out), "not a socket") || string(b) != "keep" {
		t.Fatalf("serve on a regular file: %v %s", err, out)
	}
}

// TestBundlingExample runs docs/bundling.md's worked example, examples/bundling/parent.py: a
// Python parent starts the server on port 0, reads the ready object from --ready-fd,
// creates a project, exports it, downloads the MP4 and kills itself with SIGKILL; the server
// exits within a second and the next start on its data dir succeeds.
func TestBundlingExample(t *testing.T) {
	needFFprobe(t)
	needPython(t)
	dir := t.TempDir()
	out := filepath.Join(t.TempDir(), "out.mp4")
	cmd := exec.Command("python3", filepath.Join(repoRoot, "examples", "bundling", "parent.py"),
		"--cutroom", binPath, "--data-dir", dir, "--out", out)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("the example ended with %v, want its own SIGKILL\n%s\n%s", err, stdout, stderr.String())
	}
	died := time.Now()
	var res struct {
		Ready  readyObject
		TaskID string
		Output string
	}
	if err := json.Unmarshal(stdout, &res); err != nil || res.Ready.PID == 0 || res.Output != out {
		t.Fatalf("the example printed %q: %v", stdout, err)
	}
	killOnCleanup(t, res.Ready.PID)
	server := &parentWatch{pid: res.Ready.PID}
	for !server.gone() {
		if time.Since(died) > time.Second {
			t.Fatalf("the server (pid %d) still runs 1 s after the example died", res.Ready.PID)
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("the server exited within %s of the example's death", time.Since(died))
	probe, err := exec.Command("ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0",
		"-show_entries", "stream=codec_name,nb_read_frames", "-of", "csv=p=0", out).CombinedOutput()
	if err != nil || strings.TrimSpace(string(probe)) != "h264,60" {
		t.Fatalf("the example's output: %v %s, want h264 with 60 frames", err, probe)
	}
	startServer(t, dir)
}
