package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/cutroom/cutroom/app"
)

// readyObject is what serve announces once it answers requests (--ready-fd, --ready-file,
// and with --log-format json a line on stdout): where it listens (app.Listening, the data
// dir's server.json), and whether this process attached to a server already running
// (--attach) instead of serving. docs/bundling.md documents it.
type readyObject struct {
	Event string `json:"event"` // always "ready"
	app.Listening
	Attached bool `json:"attached"`
}

// errNotAnnounced ends a serve whose ready object could not be written: the app waiting for
// it would never learn where the server listens.
var errNotAnnounced = errors.New("the ready object could not be written")

// checkReadyFlags refuses --ready-fd and --ready-file values that cannot work, before
// anything starts: an fd that is not open (or is stdin, stdout or stderr), a file whose
// directory does not exist.
func checkReadyFlags(f *serveFlags) error {
	if f.readyFD != 0 {
		if f.readyFD < 3 {
			return fmt.Errorf("--ready-fd %d: want 3 or more (for stdout, use --log-format json)", f.readyFD)
		}
		// The one *os.File of the fd: a second one's finalizer would close the fd under it.
		f.readyOut = os.NewFile(uintptr(f.readyFD), "ready-fd")
		if _, err := f.readyOut.Stat(); err != nil {
			return fmt.Errorf("--ready-fd %d: not an open file: %w", f.readyFD, err)
		}
	}
	if f.readyFile != "" {
		dir := filepath.Dir(f.readyFile)
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			return fmt.Errorf("--ready-file %s: its directory %s does not exist", f.readyFile, dir)
		}
	}
	return nil
}

// announceReady writes the ready object of l to --ready-fd (which it then closes),
// --ready-file (atomically: temp file and rename) and, with --log-format json, stdout; with
// --log-format text, stdout gets the listening line.
func announceReady(stdout io.Writer, f *serveFlags, l app.Listening, attached bool) error {
	line, err := json.Marshal(readyObject{Event: "ready", Listening: l, Attached: attached})
	if err != nil {
		return err
	}
	line = append(line, '\n')
	var errs []error
	if f.readyOut != nil {
		if _, err := f.readyOut.Write(line); err != nil {
			errs = append(errs, fmt.Errorf("--ready-fd %d: %w", f.readyFD, err))
		}
		_ = f.readyOut.Close()
		f.readyOut = nil
	}
	if f.readyFile != "" {
		if err := app.WriteFileAtomic(f.readyFile, line, 0o600); err != nil {
			errs = append(errs, fmt.Errorf("--ready-file: %w", err))
		}
	}
	switch {
	case f.logFormat == "json":
		_, err = stdout.Write(line)
	case attached:
		_, err = fmt.Fprintf(stdout, "cutroom attached to the server listening on %s (pid %d, data in %s)\n", l.URL, l.PID, l.DataDir)
	default:
		socket := ""
		if l.Socket != "" {
			socket = "socket " + l.Socket + ", "
		}
		// The listening line comes last, so a script that waits for it has everything.
		_, err = fmt.Fprintf(stdout, "cutroom listening on %s (%sdata in %s)\n", l.URL, socket, l.DataDir)
	}
	return errors.Join(append(errs, err)...)
}

// answers reports whether the server l describes answers its liveness probe within timeout.
func answers(ctx context.Context, l app.Listening, timeout time.Duration) bool {
	base, tr, err := serverClient(l.URL)
	if err != nil {
		return false
	}
	defer tr.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+l.Health, nil)
	if err != nil {
		return false
	}
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		return false
	}
	_ = resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// attachWait bounds how long serve --attach waits for the server holding the data dir to
// record where it listens (it may still be starting) before it gives up.
const attachWait = 30 * time.Second

// openOrAttach takes the data dir (app.LockDataDir, on a shared database) and opens the
// App's database. When a running server holds either and --attach is
// set, it announces that server's ready object instead (attached is then true): at once when
// the server's record answers, else once it does (a server still starting), within
// attachWait; the data dir freed meanwhile is opened after all.
func openOrAttach(ctx context.Context, a *app.App, f *serveFlags) (attached bool, err error) {
	deadline := time.Now().Add(attachWait)
	for {
		err := a.LockDataDir()
		if err == nil {
			err = a.OpenDBContext(ctx)
		}
		var busy *app.InUseError
		if err == nil || !f.attach || !errors.As(err, &busy) {
			return false, err
		}
		if busy.Server != nil && answers(ctx, *busy.Server, 2*time.Second) {
			return true, announceReady(os.Stdout, f, *busy.Server, true)
		}
		if time.Now().After(deadline) {
			return false, fmt.Errorf("--attach: no running server answered within %s: %w", attachWait, err)
		}
		select {
		case <-ctx.Done():
			return false, err
		case <-time.After(200 * time.Millisecond):
		}
	}
}
