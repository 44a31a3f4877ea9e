package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/cutroom/cutroom/app"
	"github.com/cutroom/cutroom/server"
	"github.com/cutroom/cutroom/storage"
	"github.com/spf13/cobra"
)

// backupStallTimeout bounds every wait of a backup download, for the server's answer and
// then for each next byte; the download as a whole has no bound (the server cuts off a
// client that stops reading).
const backupStallTimeout = time.Minute

func newBackupCmd() *cobra.Command {
	var out, serverURL, token string
	cmd := &cobra.Command{
		Use:   "backup -o FILE",
		Short: "Copy a consistent snapshot of a running server's database into FILE",
		Long: `Copy a consistent snapshot of a running server's database into FILE, while it serves.

The server must run with --admin-token; give the same token here (or CUTROOM_ADMIN_TOKEN).
The download goes to a temporary file beside FILE, is checked as "cutroom restore" checks a
file (pages, bbolt's consistency check, the schema version, every record and index), synced,
and only then renamed to FILE: FILE is never a partial backup.
Copy the files area (<data-dir>/files, <data-dir>/outputs) before taking the snapshot; see
docs/operations.md, "Backups and restore".`,
		Example: "  cutroom backup -o /backups/cutroom.db --server http://127.0.0.1:8787 --admin-token \"$TOKEN\"",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if out == "" {
				return errors.New("-o FILE is required")
			}
			if token == "" {
				return errors.New("--admin-token is required (the token the server was started with)")
			}
			ctx := cmd.Context()
			if ctx == nil {
				ctx = context.Background()
			}
			info, err := downloadBackup(ctx, serverURL, token, out)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "backup written to %s: %d bytes, schema version %d, checked\n", out, info.Size, info.SchemaVersion)
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&out, "output", "o", "", "file to write the backup to (replaced only by a complete, checked backup)")
	fl.StringVar(&serverURL, "server", "http://127.0.0.1:8787", "base URL of the running server, or its Unix socket: unix:/path/to/socket (or the ready object's http+unix:// url)")
	fl.StringVar(&token, "admin-token", "", "the server's --admin-token")
	return cmd
}

// downloadBackup fetches a snapshot from the server at base into dest: a temporary file in
// dest's directory, complete, synced and checked (storage.CheckFile) before it is renamed.
func downloadBackup(ctx context.Context, base, token, dest string) (storage.FileInfo, error) {
	// A server that stops answering or sending must not hang the command: the download is
	// cancelled when nothing arrives for backupStallTimeout.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stall := time.AfterFunc(backupStallTimeout, cancel)
	defer stall.Stop()
	base, tr, err := serverClient(base)
	if err != nil {
		return storage.FileInfo{}, fmt.Errorf("--server: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+server.AdminBackupPath, nil)
	if err != nil {
		return storage.FileInfo{}, fmt.Errorf("--server: %w", err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		return storage.FileInfo{}, fmt.Errorf("backup: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return storage.FileInfo{}, refusal(resp)
	}
	tmp, err := os.CreateTemp(filepath.Dir(dest), "."+filepath.Base(dest)+".part-*")
	if err != nil {
		return storage.FileInfo{}, err
	}
	done := false
	defer func() {
		if !done {
			_ = tmp.Close()
			_ = os.Remove(tmp.Name())
		}
	}()
	n, err := io.Copy(tmp, &progressReader{r: resp.Body, progress: func() { stall.Reset(backupStallTimeout) }})
	if err == nil && resp.ContentLength >= 0 && n != resp.ContentLength {
		err = io.ErrUnexpectedEOF
	}
	if err != nil {
		return storage.FileInfo{}, fmt.Errorf("backup download broke off after %d bytes: %w (%s left unchanged)", n, err, dest)
	}
	if err := tmp.Sync(); err != nil {
		return storage.FileInfo{}, err
	}
	if err := tmp.Close(); err != nil {
		return storage.FileInfo{}, err
	}
	info, err := storage.CheckFile(tmp.Name())
	if err != nil {
		return storage.FileInfo{}, fmt.Errorf("the downloaded backup does not check (%s left unchanged): %w", dest, err)
	}
	if err := os.Rename(tmp.Name(), dest); err != nil {
		return storage.FileInfo{}, err
	}
	done = true
	if d, err := os.Open(filepath.Dir(dest)); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
	return info, nil
}

// progressReader calls progress after every read that returned bytes.
type progressReader struct {
	r        io.Reader
	progress func()
}

func (p *progressReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	if n > 0 {
		p.progress()
	}
	return n, err
}

// notBBolt refuses a bbolt-only command (what it does) on --database url: PostgreSQL's
// records are backed up and restored with its own tools (tool).
func notBBolt(url, what, tool string) error {
	shown := "(not a valid URL)"
	if d, err := app.ParseDatabaseURL(url); err == nil {
		shown = d.Redacted
	}
	return fmt.Errorf("%s, but --database %s keeps the records in PostgreSQL: use %s (see docs/nodes.md, \"PostgreSQL\"); nothing was changed", what, shown, tool)
}

// refusal describes a server's non-200 answer to a backup request.
func refusal(resp *http.Response) error {
	var p server.Problem
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if json.Unmarshal(body, &p) != nil || p.ErrorCode == "" {
		return fmt.Errorf("the server answered the backup request with %s", resp.Status)
	}
	err := fmt.Errorf("the server refused the backup: %d %s: %s", p.Status, p.ErrorCode, p.Detail)
	if resp.StatusCode == http.StatusNotFound {
		err = fmt.Errorf("%w (a server serves backups only when started with --admin-token)", err)
	}
	return err
}

func newRestoreCmd(g *globalFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "restore FILE",
		Short: "Put a backup in place as the data dir's database (with the server stopped)",
		Long: `Put the backup FILE in place as the database of --data-dir, with the server stopped.

FILE is checked first: its pages, bbolt's consistency check, the schema version, and every
record decoded as the server reads it, with the indexes in step with the records; a file
that does not check is refused saying what is wrong, and nothing changes. The current database is kept beside it as
cutroom.db.<UTC time>.bak, and the new one is put in place atomically. Restore the files
area (files/, outputs/) from the same backup before starting the server again.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if g.database != "" {
				return notBBolt(g.database, "restore puts a bbolt backup in place in --data-dir", "pg_restore")
			}
			res, err := storage.Restore(g.dataDir, args[0], storage.Options{LockTimeout: adminLockTimeout})
			if errors.Is(err, storage.ErrLocked) {
				return fmt.Errorf("the data dir %s is in use by a running cutroom server; stop it before restoring (nothing was changed)", g.dataDir)
			}
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "restored %s into %s: %d bytes, schema version %d, checked\n", args[0], res.Path, res.Size, res.SchemaVersion)
			if res.Previous != "" {
				fmt.Fprintf(out, "the previous database is kept as %s\n", res.Previous)
			}
			return nil
		},
	}
}
