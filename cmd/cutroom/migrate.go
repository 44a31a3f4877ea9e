package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/cutroom/cutroom/app"
	"github.com/cutroom/cutroom/storage"
	"github.com/spf13/cobra"
)

// migrateSummary is what `cutroom migrate --json` prints.
type migrateSummary struct {
	Source        string         `json:"source"`
	Target        string         `json:"target"` // the URL, password redacted
	SchemaVersion int            `json:"schemaVersion"`
	Buckets       int            `json:"buckets"`
	Keys          int            `json:"keys"`
	Counts        map[string]int `json:"counts"`
	Verified      bool           `json:"verified"`
	Files         string         `json:"files"` // where the uploaded files and outputs stay
}

func newMigrateCmd(g *globalFlags) *cobra.Command {
	var from, to string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "migrate --from-bbolt PATH --to postgres://...",
		Short: "Copy a bbolt database (a stopped server's) into an empty PostgreSQL database",
		Long: `Copy every record of a bbolt database into an empty PostgreSQL database, for
` + "`cutroom serve --database postgres://...`" + `.

PATH is a data dir or its cutroom.db. The file is checked first as "cutroom restore" checks a
file; a server running on it must be stopped (its lock is held for the whole copy), and a
target that holds records already is refused. Every bucket, key and sequence is copied as
it is, then every workspace, API key, project (with its state), asset, export (with its state
and webhook deliveries) and illustration is read back from the target and compared with the
source; the counts per kind are printed.

The uploaded files and outputs are not in the database: they stay in the data dir (files/,
outputs/, fonts/). See docs/nodes.md, "PostgreSQL".`,
		Example: "  cutroom migrate --from-bbolt /var/lib/cutroom --to postgres://cutroom:secret@db.internal:5432/cutroom",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if from == "" || to == "" {
				return errors.New("--from-bbolt PATH and --to postgres://... are both required")
			}
			ctx := cmd.Context()
			if ctx == nil {
				ctx = context.Background()
			}
			sum, err := migrate(ctx, from, to, g.databaseWait)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if asJSON {
				return printJSON(out, sum)
			}
			fmt.Fprintf(out, "copied %s (schema version %d) into %s: %d buckets, %d keys\n", sum.Source, sum.SchemaVersion, sum.Target, sum.Buckets, sum.Keys)
			fmt.Fprintln(out, "verified: every record below read back from the target, equal to the source")
			tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
			for _, k := range censusKinds {
				fmt.Fprintf(tw, "  %s\t%d\n", k, sum.Counts[k])
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			fmt.Fprintln(out, sum.Files)
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&from, "from-bbolt", "", "the bbolt database to copy: a data dir or its cutroom.db (its server stopped)")
	fl.StringVar(&to, "to", "", "the PostgreSQL database to copy into: postgres://user:password@host:5432/dbname (it must hold no records)")
	fl.BoolVar(&asJSON, "json", false, "print the summary as a JSON object")
	return cmd
}

// migrate copies the bbolt database at from (a data dir or its cutroom.db) into the empty
// PostgreSQL database of to, verifies the copy and returns its summary.
func migrate(ctx context.Context, from, to string, wait time.Duration) (migrateSummary, error) {
	target, err := app.ParseDatabaseURL(to)
	if err != nil {
		return migrateSummary{}, fmt.Errorf("--to: %w", err)
	}
	dir, file, err := bboltPath(from)
	if err != nil {
		return migrateSummary{}, err
	}
	info, err := storage.CheckFile(file)
	if errors.Is(err, storage.ErrLocked) {
		return migrateSummary{}, fmt.Errorf("%s is in use by a running cutroom server: stop it before migrating (nothing was copied)", file)
	}
	if err != nil {
		return migrateSummary{}, err
	}
	src := app.New(app.Config{DataDir: dir, LockTimeout: adminLockTimeout})
	defer src.Close()
	if err := src.OpenDB(); err != nil {
		return migrateSummary{}, err
	}
	dst := app.New(app.Config{Database: to, DatabaseWait: wait})
	defer dst.Close()
	if err := dst.OpenDBContext(ctx); err != nil {
		return migrateSummary{}, err
	}
	want, err := takeCensus(src.DB)
	if err != nil {
		return migrateSummary{}, fmt.Errorf("read %s: %w", file, err)
	}
	stats, err := storage.Copy(ctx, src.DB, dst.DB)
	if errors.Is(err, storage.ErrTargetNotEmpty) {
		return migrateSummary{}, fmt.Errorf("the target %s holds records already: migrate copies into an empty database only (nothing was copied)", target.Redacted)
	}
	if err != nil {
		return migrateSummary{}, fmt.Errorf("copy into %s: %w", target.Redacted, err)
	}
	got, err := takeCensus(dst.DB)
	if err != nil {
		return migrateSummary{}, fmt.Errorf("verify: a record does not read back from %s: %w", target.Redacted, err)
	}
	if diff := want.differences(got); len(diff) > 0 {
		return migrateSummary{}, fmt.Errorf("verify: the target %s differs from the source: %s", target.Redacted, strings.Join(diff, "; "))
	}
	return migrateSummary{Source: file, Target: target.Redacted, SchemaVersion: info.SchemaVersion,
		Buckets: stats.Buckets, Keys: stats.Keys, Counts: got.Counts, Verified: true,
		Files: fmt.Sprintf("files: the uploaded files and outputs are not in the database; they stay in %s (files/, outputs/, fonts/): "+
			"give every node this data dir's files (a shared --blob-store DIR, or a copy); see docs/nodes.md", dir)}, nil
}

// bboltPath is the data dir and database file of --from-bbolt: a data dir, or its cutroom.db.
func bboltPath(p string) (dir, file string, err error) {
	st, err := os.Stat(p)
	if err != nil {
		return "", "", fmt.Errorf("--from-bbolt: %w", err)
	}
	if st.IsDir() {
		return p, filepath.Join(p, storage.FileName), nil
	}
	if filepath.Base(p) != storage.FileName {
		return "", "", fmt.Errorf("--from-bbolt %s: give a data dir or its %s (a backup file: restore it into a data dir first, with `cutroom restore`)", p, storage.FileName)
	}
	return filepath.Dir(p), p, nil
}
