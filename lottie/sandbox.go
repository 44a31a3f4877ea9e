package lottie

import (
	"context"
	"log/slog"
	"math"
	"sync/atomic"
	"time"
)

// Defaults of Options.
const (
	// DefaultMemory is the memory one renderer process may map (RLIMIT_DATA: its heap,
	// rlottie's model and surfaces, thread stacks); the frame it draws is in shared memory
	// the parent sizes, not counted here.
	DefaultMemory = 1 << 30
	// DefaultFrameSeconds is how long the renderer may take to start and parse the
	// document, or to draw one frame: wall time, and as much CPU time (plus up to 2 s of
	// rounding) by RLIMIT_CPU.
	DefaultFrameSeconds = 20
)

// Options are what Open measures a document against and how its renderer process is
// limited. Zero members mean their defaults.
type Options struct {
	// Limits are the structure budgets (package lottiebudget's).
	Limits Limits
	// Memory bounds each renderer process in bytes (DefaultMemory).
	Memory int64
	// FrameSeconds bounds the start and parse, and each frame (DefaultFrameSeconds).
	FrameSeconds float64
	// Logger receives a renderer's failures with the start of its standard error; nil
	// discards them.
	Logger *slog.Logger
}

func (o Options) memory() int64 {
	if o.Memory <= 0 {
		return DefaultMemory
	}
	return o.Memory
}

func (o Options) frameSeconds() float64 {
	if !(o.FrameSeconds > 0) || o.FrameSeconds > 24*3600 {
		return DefaultFrameSeconds
	}
	return o.FrameSeconds
}

func (o Options) frameLimit() time.Duration {
	return time.Duration(o.frameSeconds() * float64(time.Second))
}

// cpuSeconds is RLIMIT_CPU's allowance per request, whole seconds (the kernel's unit).
func (o Options) cpuSeconds() int64 { return int64(math.Ceil(o.frameSeconds())) }

// RendererError is a renderer process that failed on a document: it crashed, went over
// its memory or CPU time, took too long, or answered garbage. It unwraps to ErrUnsupported.
type RendererError struct {
	Reason string // ReasonSignal, ReasonMemory, ReasonCPU, ReasonTimeout or ReasonProtocol
	msg    string
}

func (e *RendererError) Error() string { return e.msg }
func (e *RendererError) Unwrap() error { return ErrUnsupported }

// Why a renderer process ended before its answer (Stats.Failed's keys).
const (
	ReasonSignal   = "signal"   // it crashed (a signal, or a C runtime abort)
	ReasonMemory   = "memory"   // its memory limit
	ReasonCPU      = "cpu"      // its CPU time limit (RLIMIT_CPU)
	ReasonTimeout  = "timeout"  // no answer within FrameSeconds: killed
	ReasonProtocol = "protocol" // a reply that is not one, or it could not be confined
	ReasonKilled   = "killed"   // its caller's context ended (cancel, watchdog, shutdown): killed
)

var reasons = [...]string{ReasonSignal, ReasonMemory, ReasonCPU, ReasonTimeout, ReasonProtocol, ReasonKilled}

func reasonIndex(r string) int {
	for i, x := range reasons {
		if x == r {
			return i
		}
	}
	return len(reasons) - 1
}

// stats counts this process's renderers.
var stats struct {
	started, running atomic.Int64
	failed           [len(reasons)]atomic.Uint64
}

// Stats are the renderer processes of this process since it started.
type Stats struct {
	Started int64             // renderers started
	Running int64             // renderers running now
	Failed  map[string]uint64 // renderers that ended before their answer, by reason
}

// ReadStats returns the renderer counts now.
func ReadStats() Stats {
	s := Stats{Started: stats.started.Load(), Running: stats.running.Load(), Failed: make(map[string]uint64, len(reasons))}
	for i, r := range reasons {
		s.Failed[r] = stats.failed[i].Load()
	}
	return s
}

// Confinement is what a renderer process is confined with besides its rlimits, by what
// the kernel has.
type Confinement struct {
	// Landlock is the Landlock ABI version applied (no file system but rlottie's plugin
	// directory, no TCP, and from ABI 6 no signals or abstract sockets outside the
	// renderer); 0 when the kernel has no Landlock, negative (-errno) when it failed.
	Landlock int
	// Seccomp is 1 with the seccomp filter (no new processes, exec or ptrace), 0 on an
	// architecture it does not know, negative (-errno) when it failed.
	Seccomp int
}

// Full reports whether both Landlock and the seccomp filter are applied.
func (c Confinement) Full() bool { return c.Landlock > 0 && c.Seccomp == 1 }

// Probe starts a renderer process and stops it: it reports what renderers are confined
// with here, or why one cannot start. Servers call it once at start (and log the answer).
func Probe(ctx context.Context, o Options) (Confinement, error) {
	r, err := startRenderer(ctx, o)
	if err != nil {
		return Confinement{}, err
	}
	r.close()
	return r.confined, nil
}
