package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"
)

// unixPrefix starts an --addr that is a Unix socket's path: unix:/run/cutroom.sock.
const unixPrefix = "unix:"

// socketPath is the path of an --addr unix:PATH ("" when addr is HOST:PORT).
func socketPath(addr string) string {
	if p, ok := strings.CutPrefix(addr, unixPrefix); ok {
		return p
	}
	return ""
}

// listen opens serve's listener on addr: HOST:PORT, or unix:PATH for a Unix socket that only
// this user may connect to (mode 0600, removed when the server stops). A socket file left by
// a server that was killed is replaced; one a server still listens on is refused.
func listen(addr string) (net.Listener, error) {
	path, isUnix := strings.CutPrefix(addr, unixPrefix)
	if !isUnix {
		ln, err := net.Listen("tcp", addr)
		if err != nil && isAddrInUse(err) {
			return nil, fmt.Errorf("listen on %s: %w (another program listens there, perhaps a cutroom serve of another data dir; --addr 127.0.0.1:0 picks a free port, which the ready object reports: see docs/bundling.md)", addr, err)
		}
		if err != nil {
			return nil, fmt.Errorf("listen on %s: %w", addr, err)
		}
		return ln, nil
	}
	if path == "" || strings.ContainsRune(path, 0) {
		return nil, fmt.Errorf("--addr %q: want unix:/path/to/socket", addr)
	}
	if err := removeStaleSocket(path); err != nil {
		return nil, err
	}
	ln, err := listenUnix(path)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", addr, err)
	}
	return ln, nil
}

// removeStaleSocket removes the socket file at path if no server answers on it (one killed
// before it could remove it); a live socket, or a file that is not a socket, is refused.
func removeStaleSocket(path string) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if fi.Mode()&os.ModeSocket == 0 {
		return fmt.Errorf("--addr unix:%s: the file exists and is not a socket (not replaced)", path)
	}
	c, err := net.DialTimeout("unix", path, 2*time.Second)
	if err == nil {
		_ = c.Close()
		return fmt.Errorf("--addr unix:%s: a server listens on this socket already (stop it, use another path, or use serve --attach with its data dir)", path)
	}
	if !isConnRefused(err) {
		return fmt.Errorf("--addr unix:%s: the socket exists and cannot be checked (%w); not replaced", path, err)
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("--addr unix:%s: remove the stale socket: %w", path, err)
	}
	return nil
}

// serverClient is how a client command reaches a server at target: an http(s) base URL, an
// --addr HOST:PORT, unix:PATH or http+unix://<percent-encoded path> (the ready object's url
// on a socket). It returns the base URL requests go to (http://localhost on a socket, whose
// client dials the socket) and the transport that reaches it.
func serverClient(target string) (string, *http.Transport, error) {
	tr := &http.Transport{Proxy: http.ProxyFromEnvironment}
	path := socketPath(target)
	if enc, ok := strings.CutPrefix(target, "http+unix://"); ok {
		p, err := url.PathUnescape(strings.SplitN(enc, "/", 2)[0])
		if err != nil || p == "" {
			return "", nil, fmt.Errorf("%q: want http+unix://<percent-encoded socket path>", target)
		}
		path = p
	}
	if path == "" {
		return strings.TrimRight(target, "/"), tr, nil
	}
	tr.Proxy = nil
	tr.DialContext = func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", path)
	}
	return "http://localhost", tr, nil
}
