// Package pgtest is test support only (imported by _test files): a real PostgreSQL for the
// tests of storage's PostgreSQL engine and of what runs on it. URL returns a fresh, empty
// database on a server the test binary starts once, on first use, from Debian's
// postgresql-15 (/usr/lib/postgresql/15/bin: initdb and postgres) in a temporary directory,
// listening on 127.0.0.1 at a free port. initdb refuses root, so a test running as root
// runs the server as nobody:nogroup. The server never outlives the test binary: it gets
// SIGKILL when the binary's process dies (Pdeathsig, Linux), and Main, the TestMain of
// packages that use it, stops it and removes its directory. fsync is off: a test's
// database need not survive a crash of the machine.
//
// Without the binaries, URL skips the test, unless CUTROOM_REQUIRE_POSTGRES=1 (make test
// sets it), where it fails.
package pgtest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// BinDir is where Debian's postgresql-15 puts its server binaries.
const BinDir = "/usr/lib/postgresql/15/bin"

// RequireEnv is the environment variable that turns a missing PostgreSQL into a failure.
const RequireEnv = "CUTROOM_REQUIRE_POSTGRES"

var (
	once   sync.Once
	srv    *server
	srvErr error
	dbSeq  atomic.Int64
)

// runAs is the user and group the server runs as.
type runAs struct{ uid, gid int }

// server is the test binary's PostgreSQL.
type server struct {
	dir  string // its temporary directory: data/, the socket, the log
	port int
	cmd  *exec.Cmd
	done chan struct{} // closed when the process has exited
}

// URL returns the URL of a new, empty database, dropped when the test ends. It starts the
// server on its first call.
func URL(t testing.TB) string {
	t.Helper()
	started(t)
	name := fmt.Sprintf("cutroom_test_%d_%d", os.Getpid(), dbSeq.Add(1))
	if err := srv.admin(fmt.Sprintf("CREATE DATABASE %s", name)); err != nil {
		t.Fatalf("create database %s: %v", name, err)
	}
	t.Cleanup(func() {
		// FORCE ends the connections a test left open (a pool not closed after a failure).
		if err := srv.admin(fmt.Sprintf("DROP DATABASE IF EXISTS %s WITH (FORCE)", name)); err != nil {
			t.Errorf("drop database %s: %v", name, err)
		}
	})
	return srv.url(name)
}

// started starts the server on the first call, and skips or fails t without one.
func started(t testing.TB) {
	t.Helper()
	once.Do(func() { srv, srvErr = start() })
	if errors.Is(srvErr, errMissing) {
		if os.Getenv(RequireEnv) == "1" {
			t.Fatalf("%v (%s=1 requires it; scripts/install-deps.sh --test installs postgresql)", srvErr, RequireEnv)
		}
		t.Skipf("%v: the PostgreSQL tests are skipped (scripts/install-deps.sh --test installs it)", srvErr)
	}
	if srvErr != nil {
		t.Fatalf("start PostgreSQL: %v", srvErr)
	}
}

// Down stops the test binary's server (a fast shutdown: every connection ends), as an
// outage or a restart of a real one would, for a test of what happens while the database
// does not answer. The returned up starts it again on the same port with the same data and
// waits until it takes connections; it runs when the test ends if the test did not call
// it. Every database of the test binary is down meanwhile: a test that calls it must not
// run in parallel with other tests of its package that use the server.
func Down(t testing.TB) (up func()) {
	t.Helper()
	started(t)
	srv.halt()
	var once sync.Once
	up = func() {
		once.Do(func() {
			cred, err := srv.owner()
			if err == nil {
				err = srv.serve(cred)
			}
			if err != nil {
				t.Fatalf("start PostgreSQL again on port %d: %v", srv.port, err)
			}
		})
	}
	t.Cleanup(up)
	return up
}

// Main runs the package's tests and then stops the server, if one was started, and removes
// its directory: call it from TestMain (os.Exit(pgtest.Main(m))).
func Main(m *testing.M) int {
	code := m.Run()
	if srv != nil {
		srv.stop()
	}
	return code
}

var errMissing = errors.New("PostgreSQL 15 is not installed (" + BinDir + ")")

func (s *server) url(db string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", s.port, db)
}

// admin runs one statement on the maintenance database.
func (s *server) admin(sql string) error { return s.exec("postgres", sql) }

// ours checks that the server answering on s.port is this one: another test binary's
// server may have taken the port between freePort's probe and this server's bind (this
// one then exits), and a readiness check that took its answer handed out URLs of a
// database about to be dropped under the tests.
func (s *server) ours() error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, s.url("postgres"))
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	var dir string
	if err := conn.QueryRow(ctx, "SELECT current_setting('data_directory')").Scan(&dir); err != nil {
		return err
	}
	if dir != s.data() {
		return fmt.Errorf("port %d answers with another server's data directory %s", s.port, dir)
	}
	return nil
}

func start() (*server, error) {
	for _, b := range []string{"initdb", "postgres"} {
		if _, err := os.Stat(filepath.Join(BinDir, b)); err != nil {
			return nil, errMissing
		}
	}
	removeStale()
	dir, err := os.MkdirTemp("", fmt.Sprintf("%s%d-", dirPrefix, os.Getpid()))
	if err != nil {
		return nil, err
	}
	s := &server{dir: dir}
	cred, err := s.owner()
	if err == nil {
		err = s.run(cred, "initdb", "-D", s.data(), "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync", "--no-instructions")
	}
	// A free port can be taken between the probe and the server's bind: a few tries.
	for try := 0; err == nil && try < 3; try++ {
		if s.port, err = freePort(); err != nil {
			break
		}
		if err = s.serve(cred); err == nil {
			return s, nil
		}
	}
	_ = os.RemoveAll(dir)
	return nil, err
}

// dirPrefix starts the name of a server's directory in the temp dir; the test binary's pid
// follows.
const dirPrefix = "cutroom-pgtest-"

// removeStale removes the directories of servers whose test binary is gone without
// removing them (killed: Pdeathsig ended its server, but nothing removed the directory).
func removeStale() {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), dirPrefix+"*"))
	for _, d := range dirs {
		// <prefix><pid>-<random>: a directory of an older pgtest (<prefix><random>, no pid)
		// may belong to a live test binary, and is left alone.
		id, _, ok := strings.Cut(strings.TrimPrefix(filepath.Base(d), dirPrefix), "-")
		pid, err := strconv.Atoi(id)
		if !ok || err != nil || pid == os.Getpid() {
			continue
		}
		if gone(pid) {
			_ = os.RemoveAll(d)
		}
	}
}

func (s *server) data() string { return filepath.Join(s.dir, "data") }

// owner returns the credential the server runs as: nil when the test is not root, else
// nobody:nogroup, to whom the directory is given.
func (s *server) owner() (*runAs, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup("nobody")
	if err != nil {
		return nil, fmt.Errorf("initdb refuses root, and there is no user nobody to run it as: %w", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	if g, err := user.LookupGroup("nogroup"); err == nil {
		gid, _ = strconv.Atoi(g.Gid)
	}
	if err := os.Chown(s.dir, uid, gid); err != nil {
		return nil, err
	}
	return &runAs{uid: uid, gid: gid}, nil
}

func (s *server) command(cred *runAs, name string, args ...string) *exec.Cmd {
	cmd := exec.Command(filepath.Join(BinDir, name), args...)
	cmd.Dir = s.dir
	cmd.Env = []string{"LC_ALL=C.UTF-8", "TZ=UTC"}
	cmd.SysProcAttr = sysProcAttr(cred)
	return cmd
}

// run runs a PostgreSQL tool to its end.
func (s *server) run(cred *runAs, name string, args ...string) error {
	out, err := s.command(cred, name, args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s: %v: %s", name, err, tail(out))
	}
	return nil
}

// serve starts the server and waits until it takes connections.
func (s *server) serve(cred *runAs) error {
	logPath := filepath.Join(s.dir, "postgres.log")
	logf, err := os.Create(logPath)
	if err != nil {
		return err
	}
	defer logf.Close()
	if cred != nil {
		_ = logf.Chown(cred.uid, cred.gid)
	}
	s.cmd = s.command(cred, "postgres", "-D", s.data(), "-p", strconv.Itoa(s.port),
		"-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories="+s.dir,
		"-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off",
		"-c", "max_connections=400", "-c", "shared_buffers=32MB")
	s.cmd.Stdout, s.cmd.Stderr = logf, logf
	if err := s.cmd.Start(); err != nil {
		return err
	}
	s.done = make(chan struct{})
	go func() { _ = s.cmd.Wait(); close(s.done) }()
	deadline := time.Now().Add(60 * time.Second)
	for {
		select {
		case <-s.done:
			log, _ := os.ReadFile(logPath)
			return fmt.Errorf("postgres exited: %s", tail(log))
		default:
		}
		if err := s.ours(); err == nil {
			return nil
		} else if time.Now().After(deadline) {
			s.stop()
			return fmt.Errorf("postgres did not take connections within a minute: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// stop shuts the server down and removes its directory.
func (s *server) stop() {
	s.halt()
	_ = os.RemoveAll(s.dir)
}

// halt shuts the server down: a fast shutdown, then SIGKILL after 10 s.
func (s *server) halt() {
	if s.cmd != nil && s.cmd.Process != nil {
		_ = s.cmd.Process.Signal(syscall.SIGINT)
		select {
		case <-s.done:
		case <-time.After(10 * time.Second):
			_ = s.cmd.Process.Kill()
			<-s.done
		}
	}
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// tail returns the last lines of a tool's output, for an error message.
func tail(out []byte) string {
	s := strings.TrimSpace(string(out))
	if len(s) > 2000 {
		s = "..." + s[len(s)-2000:]
	}
	return s
}
