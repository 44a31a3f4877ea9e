//go:build !linux

package lottie

import (
	"context"
	"sync/atomic"
	"time"
)

// Elsewhere than Linux no renderer process starts: rlottie is C++ that reads hostile
// documents, and it runs only confined (memfd shared memory, rlimits, Landlock, seccomp:
// all Linux's). Builds for other systems (the Windows build) leave rlottie out: Supported
// says so, the compositor then lists no lottie items (so capabilities omit them and an
// export using one is refused with EXPORT_FEATURE_UNSUPPORTED), and Open and Probe return
// errNoRenderer. The methods below are never reached: no renderer exists.

// errNoRenderer is every attempt to start a renderer in this build.
var errNoRenderer = &unsupported{"this build of cutroom draws no Lottie animations: " +
	"rlottie runs only in a renderer process confined by Linux"}

// Supported reports whether this build draws Lottie animations: nil on Linux, else why not.
func Supported() error { return errNoRenderer }

type renderer struct {
	dead     atomic.Bool
	confined Confinement
}

func startRenderer(context.Context, Options) (*renderer, error) { return nil, errNoRenderer }

func (r *renderer) share(int) ([]byte, error) { return nil, errNoRenderer }

func (r *renderer) request(context.Context, message, string, time.Duration) (message, error) {
	return message{}, errNoRenderer
}

func (r *renderer) failed(reason, _ string, _ error) *RendererError {
	return &RendererError{Reason: reason, msg: errNoRenderer.msg}
}

func (r *renderer) kill()    {}
func (r *renderer) abandon() {}
func (r *renderer) close()   {}

func argbToRGBA([]byte, int, int, []byte, int) {}
