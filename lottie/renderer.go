//go:build linux

package lottie

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// renderer is the parent's side of one renderer process: the process, the socket it is
// asked on, the shared memory the document and the frames go through, and what it wrote on
// its standard error (the start of it, to say why it died).
type renderer struct {
	proc     *os.Process
	conn     *os.File // the socket; non-blocking, so reads take deadlines
	shm      *os.File // the shared memory file (sealed against shrinking)
	mem      []byte   // its mapping here; only ever grown by this side
	stderr   *stderrHead
	exited   chan struct{} // closed once the process was reaped
	state    *os.ProcessState
	limits   Options
	confined Confinement // as its hello said
	// dead is set when this side kills the renderer for a reason that is not the
	// document's (its caller's context ended, its animation was closed): it is not used
	// again, and a request it fails is not a failure of the renderer
	dead atomic.Bool
	// closing is set when it was killed because its animation was closed
	closing atomic.Bool
}

// stderrHeadBytes is how much of a renderer's standard error is kept (the rest is read
// and dropped): enough for the C++ runtime's and Go's first lines, which say why it died.
const stderrHeadBytes = 2048

// startRenderer starts a renderer process (this executable in renderer mode, see child.go
// and sandbox.c) and waits for its hello, which says it is confined.
func startRenderer(ctx context.Context, o Options) (*renderer, error) {
	sp, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("lottie renderer: socketpair: %w", err)
	}
	if err := unix.SetNonblock(sp[0], true); err != nil {
		unix.Close(sp[0])
		unix.Close(sp[1])
		return nil, fmt.Errorf("lottie renderer: %w", err)
	}
	conn, theirs := os.NewFile(uintptr(sp[0]), "lottie-renderer"), os.NewFile(uintptr(sp[1]), "lottie-renderer")
	defer theirs.Close() // at once after the start: the socket must end when the renderer does
	fd, err := unix.MemfdCreate("cutroom-lottie", unix.MFD_CLOEXEC|unix.MFD_ALLOW_SEALING)
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("lottie renderer: memfd_create: %w", err)
	}
	shm := os.NewFile(uintptr(fd), "cutroom-lottie")
	// the renderer can never shrink the file under this side's mapping (a read past its end
	// would be SIGBUS here), nor seal it against growing; it cannot grow it (RLIMIT_FSIZE 0)
	if _, err := unix.FcntlInt(uintptr(fd), unix.F_ADD_SEALS, unix.F_SEAL_SHRINK|unix.F_SEAL_SEAL); err != nil {
		conn.Close()
		shm.Close()
		return nil, fmt.Errorf("lottie renderer: sealing the shared memory: %w", err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		conn.Close()
		shm.Close()
		return nil, fmt.Errorf("lottie renderer: %w", err)
	}
	defer errW.Close()
	proc, err := spawn(o, []*os.File{devNull(), devNull(), errW, theirs, shm})
	theirs.Close()
	errW.Close()
	if err != nil {
		conn.Close()
		shm.Close()
		errR.Close()
		return nil, fmt.Errorf("lottie renderer: starting %s: %w", selfExe, err)
	}
	stats.started.Add(1)
	stats.running.Add(1)
	r := &renderer{proc: proc, conn: conn, shm: shm, stderr: &stderrHead{}, exited: make(chan struct{}), limits: o}
	stderrDone := make(chan struct{})
	go func() {
		defer close(stderrDone)
		r.stderr.readFrom(errR)
		errR.Close()
	}()
	go func() {
		st, _ := proc.Wait()
		// the start of its standard error, unless a process it left holds the pipe open
		select {
		case <-stderrDone:
		case <-time.After(100 * time.Millisecond):
		}
		r.state = st
		stats.running.Add(-1)
		close(r.exited)
	}()
	hello, err := r.request(ctx, message{}, "starting", o.frameLimit())
	if err == nil && hello.op != stHello {
		r.kill()
		err = r.failed(ReasonProtocol, "starting", fmt.Errorf("its first reply is not a hello"))
	}
	if err != nil {
		r.close()
		return nil, err
	}
	r.confined = Confinement{Landlock: int(int64(hello.a)), Seccomp: int(int64(hello.b))}
	return r, nil
}

// selfExe is this executable, by a name that still reaches it after its file was replaced
// or removed (an upgrade in place).
const selfExe = "/proc/self/exe"

// spawn starts the renderer from one OS thread that never exits (spawner): a process's
// parent-death signal (SIGKILL, so a renderer never outlives cutroom) fires when the thread
// that started it exits, and Go may end a thread that a locked goroutine leaves.
func spawn(o Options, files []*os.File) (*os.Process, error) {
	spawnOnce.Do(func() {
		spawnReq = make(chan spawnCall)
		go func() {
			runtime.LockOSThread() // never unlocked: this goroutine and its thread live on
			for c := range spawnReq {
				p, err := os.StartProcess(selfExe, []string{"cutroom-lottie-renderer"}, c.attr)
				c.done <- spawnResult{p, err}
			}
		}()
	})
	env := []string{
		envRenderer + "=" + strconv.FormatInt(o.memory(), 10) + ":" + strconv.FormatInt(o.cpuSeconds(), 10) + ":" + strconv.Itoa(os.Getpid()),
		"GOMAXPROCS=1",
		"GOTRACEBACK=single",
	}
	c := spawnCall{attr: &os.ProcAttr{Env: env, Files: files,
		Sys: &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}}, done: make(chan spawnResult, 1)}
	spawnReq <- c
	res := <-c.done
	return res.p, res.err
}

type spawnCall struct {
	attr *os.ProcAttr
	done chan spawnResult
}

type spawnResult struct {
	p   *os.Process
	err error
}

var (
	spawnOnce sync.Once
	spawnReq  chan spawnCall
)

// devNull is /dev/null, opened once, for the renderers' standard input and output.
var devNull = sync.OnceValue(func() *os.File {
	f, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return nil // the renderer then starts with them closed
	}
	return f
})

// share makes the shared memory at least n bytes long and mapped here.
func (r *renderer) share(n int) ([]byte, error) {
	if len(r.mem) >= n {
		return r.mem, nil
	}
	size := max(n, 2*len(r.mem))
	if err := r.shm.Truncate(int64(size)); err != nil {
		return nil, fmt.Errorf("lottie renderer: growing the shared memory to %d bytes: %w", size, err)
	}
	if r.mem != nil {
		unix.Munmap(r.mem)
		r.mem = nil
	}
	m, err := unix.Mmap(int(r.shm.Fd()), 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("lottie renderer: mapping the shared memory: %w", err)
	}
	r.mem = m
	return m, nil
}

// request sends m (none when m.op is 0: the hello is read) and reads the reply, within
// limit and ctx. When the renderer does not answer in time, when ctx ends, or when it dies
// or answers garbage, it is killed and the error says why: ctx's error, or a
// *RendererError naming what (doing) it was doing.
func (r *renderer) request(ctx context.Context, m message, doing string, limit time.Duration) (message, error) {
	if err := r.conn.SetDeadline(time.Now().Add(limit)); err != nil {
		r.kill()
		return message{}, r.failed(ReasonProtocol, doing, err)
	}
	stop := context.AfterFunc(ctx, func() {
		r.dead.Store(true)
		r.kill()
		r.conn.SetDeadline(time.Now()) // wake the read below at once
	})
	var rep [replySize]byte
	err := func() error {
		if m.op != 0 {
			b := m.encode()
			if _, err := r.conn.Write(b[:]); err != nil {
				return err
			}
		}
		_, err := io.ReadFull(r.conn, rep[:])
		return err
	}()
	if !stop() {
		r.dead.Store(true) // ctx ended: its AfterFunc kills the renderer, even after a reply
	}
	if err == nil {
		return decode(rep[:]), nil
	}
	r.kill()
	if r.dead.Load() {
		stats.failed[reasonIndex(ReasonKilled)].Add(1)
		if err := ctx.Err(); err != nil && !r.closing.Load() {
			return message{}, err
		}
		return message{}, errClosed
	}
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return message{}, r.failed(ReasonTimeout, doing, nil)
	}
	return message{}, r.failed("", doing, err)
}

// failed counts a renderer's failure and describes it; reason "" reads it from how the
// process ended (it was killed, or is killed now, and reaped).
func (r *renderer) failed(reason, doing string, cause error) *RendererError {
	head := ""
	if reason == "" {
		r.kill()
		select {
		case <-r.exited:
		case <-time.After(2 * time.Second):
		}
		reason, head = ReasonProtocol, ""
		if st := r.exitState(); st != nil {
			reason, head = classify(st, r.stderr.bytes())
		}
	}
	o := r.limits
	var msg string
	switch reason {
	case ReasonTimeout:
		msg = fmt.Sprintf("the Lottie animation took longer than %gs %s; its renderer was stopped", o.frameSeconds(), doing)
	case ReasonCPU:
		msg = fmt.Sprintf("the Lottie animation used more than %d s of CPU time %s; its renderer was stopped", o.cpuSeconds(), doing)
	case ReasonMemory:
		msg = fmt.Sprintf("the Lottie animation exceeded its renderer's memory limit (%d MiB) %s", o.memory()>>20, doing)
	case ReasonSignal:
		msg = fmt.Sprintf("the Lottie animation crashed its renderer (%s) %s", head, doing)
	default:
		what := "its renderer answered garbage"
		if cause != nil {
			what = "its renderer failed: " + cause.Error()
		}
		if st := r.exitState(); st != nil && st.ExitCode() == exitConfine {
			what = "its renderer could not be confined: " + firstLine(r.stderr.bytes())
		}
		msg = fmt.Sprintf("the Lottie animation cannot be drawn %s: %s", doing, what)
	}
	stats.failed[reasonIndex(reason)].Add(1)
	if o.Logger != nil {
		o.Logger.Warn("lottie renderer failed", "reason", reason, "doing", doing, "stderr", string(r.stderr.bytes()))
	}
	return &RendererError{Reason: reason, msg: msg}
}

// exitState is how the renderer ended, or nil while it has not been reaped (state is written
// by the goroutine that reaps it, before it closes exited).
func (r *renderer) exitState() *os.ProcessState {
	select {
	case <-r.exited:
		return r.state
	default:
		return nil
	}
}

// classify tells why a renderer ended by its exit and the start of its standard error, and
// for a crash says how ("signal: aborted").
func classify(st *os.ProcessState, stderr []byte) (reason, how string) {
	ws, _ := st.Sys().(syscall.WaitStatus)
	switch {
	case memoryFailure(stderr):
		return ReasonMemory, ""
	case ws.Exited() && ws.ExitStatus() == exitCPU, ws.Signaled() && ws.Signal() == syscall.SIGXCPU:
		return ReasonCPU, ""
	case ws.Signaled():
		return ReasonSignal, "signal: " + ws.Signal().String()
	}
	// a crash in the C code: the Go runtime of the renderer prints the signal first
	// ("SIGSEGV: segmentation violation") and exits 2
	if line := firstLine(stderr); bytes.HasPrefix([]byte(line), []byte("SIG")) {
		if name, _, ok := bytes.Cut([]byte(line), []byte(":")); ok {
			if sig := unix.SignalNum(string(name)); sig != 0 {
				return ReasonSignal, "signal: " + sig.String()
			}
		}
	}
	if ws.Exited() && ws.ExitStatus() != exitConfine && ws.ExitStatus() != exitProtocol {
		return ReasonSignal, "exit status " + strconv.Itoa(ws.ExitStatus())
	}
	return ReasonProtocol, ""
}

// memoryFailure reports whether a renderer's standard error says it ran out of memory:
// libstdc++'s uncaught std::bad_alloc, the Go runtime's fatal errors, or a thread whose
// stack could not be mapped.
func memoryFailure(stderr []byte) bool {
	for _, s := range []string{"std::bad_alloc", "out of memory", "cannot allocate memory", "pthread_create failed"} {
		if bytes.Contains(stderr, []byte(s)) {
			return true
		}
	}
	return false
}

func firstLine(b []byte) string {
	line, _, _ := bytes.Cut(bytes.TrimSpace(b), []byte("\n"))
	return string(line)
}

// kill stops the renderer (SIGKILL); it may be called more than once and from another
// goroutine (a context's AfterFunc). os.Process signals through a pidfd: never another
// process that took the pid.
func (r *renderer) kill() {
	r.proc.Kill() // an error means it has already been reaped
}

// abandon kills the renderer for its animation's Close, from any goroutine: a request in
// flight returns errClosed.
func (r *renderer) abandon() {
	r.closing.Store(true)
	r.dead.Store(true)
	r.kill()
}

// close kills the renderer, waits (up to a second) until it was reaped, and releases this
// side's files and mapping. Only the owner of r calls it, after its last request.
func (r *renderer) close() {
	r.kill()
	select {
	case <-r.exited:
	case <-time.After(time.Second):
	}
	r.conn.Close()
	r.shm.Close()
	if r.mem != nil {
		unix.Munmap(r.mem)
		r.mem = nil
	}
}

// stderrHead keeps the first stderrHeadBytes of a stream.
type stderrHead struct {
	mu  sync.Mutex
	buf []byte
}

func (h *stderrHead) readFrom(rd io.Reader) {
	b := make([]byte, 512)
	for {
		n, err := rd.Read(b)
		h.mu.Lock()
		if keep := min(n, stderrHeadBytes-len(h.buf)); keep > 0 {
			h.buf = append(h.buf, b[:keep]...)
		}
		h.mu.Unlock()
		if err != nil {
			return
		}
	}
}

func (h *stderrHead) bytes() []byte {
	h.mu.Lock()
	defer h.mu.Unlock()
	return bytes.Clone(h.buf)
}

// Supported reports whether this build draws Lottie animations: nil on Linux, else why not
// (renderer_other.go).
func Supported() error { return nil }
