//go:build !unix

package main

import (
	"net"
	"os"
	"strings"
)

// listenUnix listens on a new Unix socket at path (Windows 10 and later have AF_UNIX;
// access follows the directory's ACL, there is no file mode to set).
func listenUnix(path string) (net.Listener, error) {
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, err
	}
	_ = os.Chmod(path, 0o600)
	return ln, nil
}

// isAddrInUse reports whether a listen failed because the address is taken (the system's
// words; Windows: WSAEADDRINUSE).
func isAddrInUse(err error) bool {
	s := err.Error()
	return strings.Contains(s, "address already in use") || strings.Contains(s, "Only one usage of each socket address")
}

// isConnRefused reports whether a dial failed because nothing listens (a stale socket).
func isConnRefused(err error) bool {
	s := err.Error()
	return strings.Contains(s, "connection refused") || strings.Contains(s, "actively refused")
}
