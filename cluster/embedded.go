package cluster

import (
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"strconv"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// MinTokenLength is the shortest --cluster-token accepted.
const MinTokenLength = 16

// Embedded is a NATS server with JetStream running inside the process (--cluster-listen).
type Embedded struct {
	srv *server.Server
}

// StartEmbedded starts a NATS server listening on listen (HOST:PORT; a port of 0 picks
// one), requiring token from every client, with JetStream stored under dataDir/nats.
func StartEmbedded(listen, token, dataDir string) (*Embedded, error) {
	if len(token) < MinTokenLength {
		return nil, fmt.Errorf("--cluster-token must be at least %d characters (workers present it to join)", MinTokenLength)
	}
	host, portText, err := net.SplitHostPort(listen)
	if err != nil {
		return nil, fmt.Errorf("--cluster-listen %q: want HOST:PORT: %w", listen, err)
	}
	port, err := strconv.Atoi(portText)
	if err != nil || port < 0 || port > 65535 {
		return nil, fmt.Errorf("--cluster-listen %q: bad port", listen)
	}
	if port == 0 {
		port = server.RANDOM_PORT
	}
	if host == "" {
		return nil, fmt.Errorf("--cluster-listen %q: name the address to listen on (127.0.0.1 for this machine only, 0.0.0.0 for every interface)", listen)
	}
	opts := &server.Options{ServerName: "cutroom", Host: host, Port: port, Authorization: token,
		JetStream: true, StoreDir: filepath.Join(dataDir, "nats"), NoSigs: true, NoLog: true,
		MaxPayload: 8 << 20}
	srv, err := server.NewServer(opts)
	if err != nil {
		return nil, fmt.Errorf("embedded NATS server: %w", err)
	}
	go srv.Start()
	if !srv.ReadyForConnections(10 * time.Second) {
		srv.Shutdown()
		return nil, errors.New("embedded NATS server: not ready after 10 s")
	}
	return &Embedded{srv: srv}, nil
}

// Addr is the address clients dial.
func (e *Embedded) Addr() string {
	if a, ok := e.srv.Addr().(*net.TCPAddr); ok {
		return a.String()
	}
	return ""
}

// Shutdown stops the server and waits for it.
func (e *Embedded) Shutdown() {
	e.srv.Shutdown()
	e.srv.WaitForShutdown()
}
