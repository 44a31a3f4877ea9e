package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"
)

// parentPollInterval is how often --parent-pid's process is looked at: with the shutdown
// after it, a server whose parent died exits well within a second. On Linux the parent's
// death also sends SIGTERM at once (PR_SET_PDEATHSIG, parent_linux.go) when --parent-pid is
// the process's own parent.
const parentPollInterval = 200 * time.Millisecond

// addLifecycleFlags declares serve's flags for an app that bundles the server (see
// docs/bundling.md): how it learns where the server listens, and how the server ends with it.
func addLifecycleFlags(cmd *cobra.Command, f *serveFlags) {
	fl := cmd.Flags()
	fl.IntVar(&f.readyFD, "ready-fd", 0, "write the ready object (one JSON line: url, port, socket, pid, version, data dir) to this inherited file descriptor, then close it, once the server answers requests")
	fl.StringVar(&f.readyFile, "ready-file", "", "write the ready object to this file (atomically: a temp file renamed) once the server answers requests")
	fl.BoolVar(&f.attach, "attach", false, "when a server already serves --data-dir, announce its ready object (ready fd, file, stdout) and exit 0 instead of failing")
	fl.IntVar(&f.parentPID, "parent-pid", 0, "shut down gracefully when the process with this id ends (the app that started the server)")
	fl.BoolVar(&f.stdinEOF, "exit-on-stdin-eof", false, "shut down gracefully when stdin reaches its end (the app holding the pipe closed it or died)")
}

// watchLifecycle starts the watches of --parent-pid and --exit-on-stdin-eof, which end ctx
// (through end, with their cause) as SIGTERM does; they stop when ctx ends.
func watchLifecycle(ctx context.Context, f *serveFlags, end context.CancelCauseFunc) error {
	if f.parentPID != 0 {
		w, err := checkParentPID(f.parentPID)
		if err != nil {
			return err
		}
		go watchParent(ctx, w, end)
	}
	if f.stdinEOF {
		go watchStdin(os.Stdin, end)
	}
	return nil
}

// Causes of a shutdown other than a signal, as serve logs them.
var (
	errParentGone = errors.New("the --parent-pid process ended")
	errStdinEOF   = errors.New("stdin reached its end (--exit-on-stdin-eof)")
)

// checkParentPID refuses a --parent-pid that names no running process, so that an app
// passing a wrong id learns it at once instead of a server that exits on its own later.
func checkParentPID(pid int) (*parentWatch, error) {
	if pid <= 0 {
		return nil, fmt.Errorf("--parent-pid %d: want a process id", pid)
	}
	w, err := newParentWatch(pid)
	if err != nil {
		return nil, fmt.Errorf("--parent-pid %d: %w", pid, err)
	}
	return w, nil
}

// watchParent calls end(errParentGone) when w's process has ended; it returns when ctx ends.
// The poll is the portable way; newParentWatch adds the platform's own where it has one.
func watchParent(ctx context.Context, w *parentWatch, end context.CancelCauseFunc) {
	t := time.NewTicker(parentPollInterval)
	defer t.Stop()
	for {
		if w.gone() {
			end(errParentGone)
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// watchStdin calls end(errStdinEOF) when stdin reaches its end or fails: the parent that
// holds the other end of the pipe closed it or died (--exit-on-stdin-eof). What arrives on
// stdin is read and dropped. The read cannot be interrupted portably: after a shutdown for
// another cause the goroutine ends with the process.
func watchStdin(r io.Reader, end context.CancelCauseFunc) {
	_, _ = io.Copy(io.Discard, r)
	end(errStdinEOF)
}
