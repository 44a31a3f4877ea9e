//go:build unix

package main

import (
	"errors"
	"net"
	"os"
	"syscall"
)

// listenUnix listens on a new Unix socket at path with mode 0600: the umask is narrowed
// while the socket is made, so it is never open to others, not even between its creation
// and a chmod.
func listenUnix(path string) (net.Listener, error) {
	old := syscall.Umask(0o177)
	ln, err := net.Listen("unix", path)
	syscall.Umask(old)
	if err != nil {
		return nil, err
	}
	if err := os.Chmod(path, 0o600); err != nil {
		_ = ln.Close()
		return nil, err
	}
	return ln, nil
}

// isAddrInUse reports whether a listen failed because the address is taken.
func isAddrInUse(err error) bool { return errors.Is(err, syscall.EADDRINUSE) }

// isConnRefused reports whether a dial failed because nothing listens (a stale socket).
func isConnRefused(err error) bool { return errors.Is(err, syscall.ECONNREFUSED) }
