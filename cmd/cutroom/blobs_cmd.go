package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/cutroom/cutroom/app"
	"github.com/cutroom/cutroom/blob"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// addBlobFlags declares serve's blob store flags (see docs/nodes.md).
func addBlobFlags(cmd *cobra.Command, f *serveFlags) {
	fl := cmd.Flags()
	fl.StringVar(&f.blobs.Store, "blob-store", "", "where uploaded files and export outputs live: empty (the data dir), nats (the object store of the NATS of --cluster-listen or --nats, with local copies in the data dir) or a directory every API node mounts (e.g. NFS)")
	fl.Int64Var(&f.blobs.CacheBytes, "blob-cache-bytes", blob.DefaultCacheBytes, "with --blob-store nats, bound on the local copies of files in the data dir (least recently used go first; files in use stay)")
	fl.IntVar(&f.blobs.Replicas, "blob-replicas", 1, "with --blob-store nats, how many copies the NATS cluster keeps of the files when the object store is created (an existing store keeps its own)")
}

// addNATSClientFlags declares the flags of a command that joins the servers' NATS as a
// client (blobs push, export --blob-store nats).
func addNATSClientFlags(fl *pflag.FlagSet, cs *app.ClusterSettings) {
	fl.StringSliceVar(&cs.NATS, "nats", nil, "the NATS servers: nats://host:4222 (a server's --cluster-listen, or the servers of its --nats)")
	fl.StringVar(&cs.Token, "cluster-token", "", "the cluster's secret (the server's --cluster-token)")
	fl.StringVar(&cs.Creds, "nats-creds", "", "NATS credentials file (user JWT and NKey seed)")
}

// checkBlobFlags checks serve's blob store flags before anything is opened.
func checkBlobFlags(f *serveFlags) error {
	if f.blobs.Store == app.BlobStoreNATS && f.cluster.Listen == "" && len(f.cluster.NATS) == 0 {
		return errors.New("--blob-store nats keeps files in the NATS object store: it needs --cluster-listen or --nats")
	}
	if f.blobs.Replicas < 1 || f.blobs.Replicas > 5 {
		return errors.New("--blob-replicas must be 1..5")
	}
	return nil
}

func newBlobsCmd(g *globalFlags) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "blobs",
		Short: "Move uploaded files and outputs into the NATS object store",
	}
	var cs app.ClusterSettings
	var bs app.BlobSettings
	push := &cobra.Command{
		Use:   "push",
		Short: "Put the data dir's uploaded files and outputs into the NATS object store",
		Long: `Put every uploaded file (<data-dir>/files/assets) and export output (<data-dir>/outputs) into
the object store that serve --blob-store nats uses, on the NATS at --nats, keeping their names,
so that API nodes started with --blob-store nats serve the files of an existing install. Nothing
in the data dir changes. It may run again: a file put again replaces its object with the same
bytes. It prints one line per file and a total.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			if ctx == nil {
				ctx = context.Background()
			}
			ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
			defer stop()
			if _, err := os.Stat(g.dataDir); err != nil {
				return fmt.Errorf("--data-dir: %w", err)
			}
			rep, err := app.PushBlobs(ctx, g.dataDir, cs, bs, func(key string, size int64) {
				fmt.Printf("%s\t%d\n", key, size)
			})
			if err != nil {
				return err
			}
			fmt.Printf("pushed %d files, %d bytes\n", rep.Files, rep.Bytes)
			return nil
		},
	}
	fl := push.Flags()
	addNATSClientFlags(fl, &cs)
	fl.IntVar(&bs.Replicas, "blob-replicas", 1, "how many copies the NATS cluster keeps of the files if the object store is created now (an existing store keeps its own)")
	cmd.AddCommand(push)
	return cmd
}
