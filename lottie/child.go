//go:build linux

package lottie

import (
	"fmt"
	"math"
	"os"
	"os/signal"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The renderer process's file descriptors (the parent's ProcAttr.Files).
const (
	fdSocket = 3
	fdShared = 4
)

// init turns a process started as a renderer (CUTROOM_LOTTIE_RENDERER set, see
// renderer.go) into one: it serves the parent's requests and exits, so the program's own
// main (or TestMain) never runs. The limits were applied before the Go runtime started
// (sandbox.c); package inits that ran before this one ran under them too.
func init() {
	if os.Getenv(envRenderer) == "" {
		return
	}
	os.Exit(serveRenderer())
}

// serveRenderer is a renderer process's life: the hello (what the constructor applied),
// then one request after another until the parent closes the socket.
func serveRenderer() int {
	isRenderer, conf, failed := confinement()
	if !isRenderer || failed != "" {
		if failed == "" {
			failed = "the constructor did not run"
		}
		fmt.Fprintf(os.Stderr, "cutroom lottie renderer: not confined (%s)\n", failed)
		return exitConfine
	}
	var cpuSeconds uint64
	fmt.Sscanf(os.Getenv(envRenderer), "%d:%d", new(uint64), &cpuSeconds)
	xcpu := make(chan os.Signal, 1)
	signal.Notify(xcpu, syscall.SIGXCPU)
	go func() {
		<-xcpu
		os.Exit(exitCPU)
	}()
	r := &child{}
	if err := r.reply(message{op: stHello, a: uint64(int64(conf.Landlock)), b: uint64(int64(conf.Seccomp))}); err != nil {
		return 0
	}
	var req [requestSize]byte
	for {
		if err := readFull(fdSocket, req[:]); err != nil {
			return 0 // the parent closed the socket
		}
		allowCPU(cpuSeconds)
		m := decode(req[:])
		var rep message
		var err error
		switch m.op {
		case opLoad:
			rep, err = r.load(m.a)
		case opRender:
			rep, err = r.render(m.a, m.b, m.c)
		default:
			err = fmt.Errorf("unknown request %d", m.op)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "cutroom lottie renderer: %v\n", err)
			return exitProtocol
		}
		if r.reply(rep) != nil {
			return 0
		}
	}
}

// child is a renderer's state: its animation and its mapping of the shared memory.
type child struct {
	anim *rlAnim
	mem  []byte
}

// mapped returns the shared memory mapped with at least n bytes.
func (r *child) mapped(n uint64) ([]byte, error) {
	if uint64(len(r.mem)) >= n {
		return r.mem, nil
	}
	var st unix.Stat_t
	if err := unix.Fstat(fdShared, &st); err != nil {
		return nil, err
	}
	if uint64(st.Size) < n || st.Size > math.MaxInt {
		return nil, fmt.Errorf("the shared memory has %d bytes, %d needed", st.Size, n)
	}
	if r.mem != nil {
		unix.Munmap(r.mem)
		r.mem = nil
	}
	m, err := unix.Mmap(fdShared, 0, int(st.Size), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		return nil, err
	}
	r.mem = m
	return m, nil
}

func (r *child) load(n uint64) (message, error) {
	if r.anim != nil {
		return message{}, fmt.Errorf("a second document")
	}
	m, err := r.mapped(n + 1)
	if err != nil {
		return message{}, err
	}
	if m[n] != 0 {
		return message{}, fmt.Errorf("the document is not NUL-terminated")
	}
	if r.anim = rlLoad(unsafe.Pointer(&m[0])); r.anim == nil {
		return message{op: stRefused}, nil
	}
	w, h := r.anim.size()
	return message{op: stOK, a: uint64(w), b: uint64(h), c: uint64(r.anim.totalFrames())}, nil
}

func (r *child) render(frame, w, h uint64) (message, error) {
	if r.anim == nil || w == 0 || h == 0 || w > MaxSide || h > MaxSide {
		return message{}, fmt.Errorf("render %d x %d before a document or out of bounds", w, h)
	}
	m, err := r.mapped(4 * w * h)
	if err != nil {
		return message{}, err
	}
	clear(m[:4*w*h])
	r.anim.render(int(frame), unsafe.Pointer(&m[0]), int(w), int(h))
	return message{op: stOK}, nil
}

func (r *child) reply(m message) error {
	b := m.encode()
	for p := b[:]; len(p) > 0; {
		n, err := unix.SendmsgN(fdSocket, p, nil, nil, unix.MSG_NOSIGNAL)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		p = p[n:]
	}
	return nil
}

func readFull(fd int, b []byte) error {
	for len(b) > 0 {
		n, err := unix.Read(fd, b)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		if n == 0 {
			return fmt.Errorf("end of file")
		}
		b = b[n:]
	}
	return nil
}

// allowCPU lets the next request use seconds of CPU time: the soft RLIMIT_CPU moves to the
// time used so far plus seconds (the kernel then sends SIGXCPU, and the renderer exits with
// exitCPU). The hard limit stays where the constructor left it.
func allowCPU(seconds uint64) {
	var ru unix.Rusage
	if unix.Getrusage(unix.RUSAGE_SELF, &ru) != nil {
		return
	}
	used := uint64(ru.Utime.Sec+ru.Stime.Sec) + 1 // whole seconds, rounded up
	var lim unix.Rlimit
	if unix.Getrlimit(unix.RLIMIT_CPU, &lim) != nil {
		return
	}
	lim.Cur = min(used+seconds, lim.Max)
	unix.Setrlimit(unix.RLIMIT_CPU, &lim)
}

func syscallErr(errno int) string { return syscall.Errno(errno).Error() }
