// Command cutroom is a self-hosted video export server: it stores video-editor projects,
// holds uploaded media, and renders MP4 and WebM files from editor states. See README.md.
package main

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/cutroom/cutroom/app"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

func main() {
	if err := newRootCmd().Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "cutroom:", err)
		var ee exitError
		if errors.As(err, &ee) {
			os.Exit(int(ee))
		}
		os.Exit(1)
	}
}

// exitError carries a specific exit status.
type exitError int

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

// globalFlags are the flags every subcommand shares.
type globalFlags struct {
	dataDir      string
	logLevel     string
	database     string        // --database: empty, the bbolt file in dataDir
	databaseWait time.Duration // --database-wait
}

func newRootCmd() *cobra.Command {
	g := &globalFlags{}
	root := &cobra.Command{
		Use:           "cutroom",
		Short:         "Self-hosted video export server",
		Long:          "cutroom stores video-editor projects and assets and renders MP4 and WebM files from editor states.\nEvery flag can also be set as an environment variable CUTROOM_<FLAG> (e.g. CUTROOM_DATA_DIR).",
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			return applyEnv(cmd)
		},
	}
	root.PersistentFlags().StringVar(&g.dataDir, "data-dir", "./data", "directory of the database and stored files")
	root.PersistentFlags().StringVar(&g.database, "database", "", "where records live: empty, the bbolt file <data-dir>/cutroom.db (one process); postgres://user:password@host:5432/dbname, a PostgreSQL database several API nodes share (docs/nodes.md)")
	root.PersistentFlags().DurationVar(&g.databaseWait, "database-wait", app.DefaultDatabaseWait, "how long opening a --database postgres:// database keeps retrying while it does not answer")
	root.PersistentFlags().StringVar(&g.logLevel, "log-level", "info", "log level: debug, info, warn or error")
	// --version is declared here so that cobra does not add a -v shorthand for it.
	root.Version = versionText()
	root.SetVersionTemplate("{{.Version}}")
	root.Flags().Bool("version", false, "print the version, commit and build settings (as `cutroom version`)")
	root.AddCommand(newServeCmd(g), newExportCmd(g), newWorkspacesCmd(g), newKeysCmd(g),
		newBackupCmd(), newRestoreCmd(g), newMigrateCmd(g), newVersionCmd(), newHealthcheckCmd(), newWorkerCmd(g), newFontsCmd(g), newBlobsCmd(g))
	return root
}

// applyEnv sets every flag the command line did not set from CUTROOM_<NAME>, where NAME is
// the flag's name in upper case with dashes as underscores.
func applyEnv(cmd *cobra.Command) error {
	var firstErr error
	set := func(f *pflag.Flag) {
		if f.Changed || firstErr != nil {
			return
		}
		env := "CUTROOM_" + strings.ToUpper(strings.ReplaceAll(f.Name, "-", "_"))
		if v, ok := os.LookupEnv(env); ok {
			if err := f.Value.Set(v); err != nil {
				firstErr = fmt.Errorf("%s=%q: %w", env, v, err)
				return
			}
			f.Changed = true
		}
	}
	cmd.Flags().VisitAll(set)
	cmd.InheritedFlags().VisitAll(set)
	return firstErr
}
