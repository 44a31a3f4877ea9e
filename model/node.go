package model

import (
	"crypto/rand"
	"encoding/hex"
	"os"
)

// NewNodeID returns a node id for a process that was given none: its host name and 6 random
// hex digits ("api-1-3fa9c2"), new at each start. Task leases and webhook claims carry it.
func NewNodeID() string {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "node"
	}
	b := make([]byte, 3)
	_, _ = rand.Read(b)
	return host + "-" + hex.EncodeToString(b)
}
