package main

import (
	"fmt"
	"time"

	"github.com/cutroom/cutroom/export"
	"github.com/spf13/cobra"
)

// minLeaseTTL is the shortest --lease-ttl: nodes renew their leases every third of it, and a
// database write every few hundred milliseconds per node is the most worth paying for a
// faster takeover.
const minLeaseTTL = time.Second

// addLeaseFlags declares serve's flags of the task leases and webhook claims of several API
// nodes on one database (see docs/nodes.md).
func addLeaseFlags(cmd *cobra.Command, f *serveFlags) {
	fl := cmd.Flags()
	fl.StringVar(&f.nodeID, "node-id", "", "this node's name in the leases of the exports it renders and the claims of the webhooks it sends; nodes on one database need different ids (empty: <hostname>-<6 random hex digits>, new at each start)")
	fl.DurationVar(&f.leaseTTL, "lease-ttl", export.DefaultLeaseTTL, "how long a node's lease on an export (renewed every third of it) and its claim on a webhook attempt (beyond the attempt's timeout) outlast the node: another node takes over after it")
}

// checkLeaseFlags refuses a --lease-ttl too short to renew in time.
func checkLeaseFlags(f *serveFlags) error {
	if f.leaseTTL < minLeaseTTL {
		return fmt.Errorf("--lease-ttl must be at least %s", minLeaseTTL)
	}
	if len(f.nodeID) > 128 {
		return fmt.Errorf("--node-id must be at most 128 characters")
	}
	return nil
}
