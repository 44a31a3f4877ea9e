package app

import (
	"encoding/json"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/cutroom/cutroom/storage"
)

// ServerFile is the file in the data dir that records where the App serving it listens: it
// is written once the server serves and removed when its shutdown begins, while the App
// still holds the database's lock. A second start on the data dir reads it to name the
// running server (InUseError); one left by a killed server is replaced by the next.
const ServerFile = "server.json"

// The paths a Listening names: the API's base, the liveness and the readiness probes.
const (
	APIPath       = "/v1"
	HealthPath    = "/healthz"
	ReadinessPath = "/readyz"
)

// Listening is where a serving App listens: the content of ServerFile and of the ready
// object serve writes (--ready-fd, --ready-file, the ready line of --log-format json).
type Listening struct {
	// URL reaches the server: http://host:port, or for a Unix socket
	// http+unix://<socket path, percent-encoded> (a client dials Socket and sends Host:
	// localhost).
	URL string `json:"url"`
	// Port is the TCP port (0, left out, on a Unix socket).
	Port int `json:"port,omitempty"`
	// Socket is the Unix socket's path (empty, left out, on TCP).
	Socket string `json:"socket,omitempty"`
	// PID is the serving process's id.
	PID int `json:"pid"`
	// Version is the binary's version (Config.Version).
	Version string `json:"version"`
	// DataDir is the data dir's absolute path.
	DataDir string `json:"dataDir"`
	// API, Health and Readiness are the paths of the API's base (/v1), the liveness probe
	// (/healthz) and the readiness probe (/readyz).
	API       string `json:"api"`
	Health    string `json:"health"`
	Readiness string `json:"readiness"`
}

// UnixURL is the URL of a server on the Unix socket at path: http+unix:// and the path
// percent-encoded as the host (the form of Python's requests-unixsocket and others).
func UnixURL(path string) string {
	return "http+unix://" + url.PathEscape(path)
}

// listeningOn describes ln as the App serving dataDir in this process.
func listeningOn(ln net.Addr, dataDir, version string) Listening {
	abs, err := filepath.Abs(dataDir)
	if err != nil {
		abs = dataDir
	}
	l := Listening{PID: os.Getpid(), Version: version, DataDir: abs, API: APIPath, Health: HealthPath,
		Readiness: ReadinessPath}
	switch a := ln.(type) {
	case *net.UnixAddr:
		l.Socket, l.URL = a.Name, UnixURL(a.Name)
	case *net.TCPAddr:
		l.Port = a.Port
		host := a.IP.String()
		if a.IP == nil || a.IP.IsUnspecified() {
			// a client reaches a server on every address through loopback
			host = "127.0.0.1"
			if a.IP != nil && a.IP.To4() == nil {
				host = "::1"
			}
		}
		l.URL = "http://" + net.JoinHostPort(host, fmt.Sprint(a.Port))
	default:
		l.URL = "http://" + ln.String()
	}
	return l
}

// Listening is where the App listens; it needs Open with a listener.
func (a *App) Listening() Listening {
	return a.listening
}

// ReadListening reads the data dir's ServerFile: where the server that serves it, or last
// served it without a clean exit, listens. os.ErrNotExist means no server recorded one.
func ReadListening(dataDir string) (Listening, error) {
	var l Listening
	b, err := os.ReadFile(filepath.Join(dataDir, ServerFile))
	if err != nil {
		return l, err
	}
	if err := json.Unmarshal(b, &l); err != nil || l.URL == "" {
		return Listening{}, fmt.Errorf("%s: not a server record", filepath.Join(dataDir, ServerFile))
	}
	return l, nil
}

// writeListening records l in the data dir's ServerFile (temp file, synced, renamed).
func writeListening(dataDir string, l Listening) error {
	b, err := json.Marshal(l)
	if err != nil {
		return err
	}
	return WriteFileAtomic(filepath.Join(dataDir, ServerFile), append(b, '\n'), 0o600)
}

// removeListening removes the data dir's ServerFile if it is this process's record.
func removeListening(dataDir string) {
	if l, err := ReadListening(dataDir); err == nil && l.PID == os.Getpid() {
		_ = os.Remove(filepath.Join(dataDir, ServerFile))
	}
}

// WriteFileAtomic writes b to path through a temporary file in its directory, synced and
// renamed: a reader sees the old file or the whole new one, never part of it.
func WriteFileAtomic(path string, b []byte, mode os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	done := false
	defer func() {
		if !done {
			_ = tmp.Close()
			_ = os.Remove(tmp.Name())
		}
	}()
	if _, err := tmp.Write(b); err != nil {
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	done = true
	if d, err := os.Open(filepath.Dir(path)); err == nil { // the rename itself, durable
		_ = d.Sync()
		_ = d.Close()
	}
	return nil
}

// InUseError is OpenDB's error when another process holds the data dir's database: Server
// is where the server recorded in ServerFile listens (nil: none recorded, e.g. a server
// still starting or an admin command). It wraps storage.ErrLocked.
type InUseError struct {
	DataDir string
	Server  *Listening
}

func (e *InUseError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "the data dir %s is in use by a running cutroom server", e.DataDir)
	if e.Server != nil {
		fmt.Fprintf(&b, " at %s (pid %d)", e.Server.URL, e.Server.PID)
	}
	b.WriteString(" (the database allows one process at a time); stop that server or use another --data-dir")
	if e.Server != nil {
		b.WriteString(" (serve --attach reuses the running server)")
	}
	return b.String()
}

func (e *InUseError) Unwrap() error { return storage.ErrLocked }

// inUse is the InUseError of dataDir, with the server its ServerFile names.
func inUse(dataDir string) error {
	e := &InUseError{DataDir: dataDir}
	if l, err := ReadListening(dataDir); err == nil {
		e.Server = &l
	}
	return e
}
