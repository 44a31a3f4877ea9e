package storage_test

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cutroom/cutroom/internal/dirtest"
	"github.com/cutroom/cutroom/internal/waittest"
	"github.com/cutroom/cutroom/storage"
)

// backupOf writes a snapshot of db to a file and returns its path.
func backupOf(t *testing.T, db *storage.DB) string {
	t.Helper()
	snap, err := db.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	path := filepath.Join(t.TempDir(), "backup.db")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	n, err := snap.WriteTo(f)
	if err != nil {
		t.Fatal(err)
	}
	if n != snap.Size() {
		t.Fatalf("wrote %d bytes, Size %d", n, snap.Size())
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

func workspaceNames(t *testing.T, dir string) []string {
	t.Helper()
	db := open(t, dir, nil)
	defer db.Close()
	wss, err := db.Workspaces()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, ws := range wss {
		names = append(names, ws.Name)
	}
	slices.Sort(names)
	return names
}

// TestSnapshotAndRestore: a snapshot holds the database as of its start (not a write made
// while it is open); restoring it into a fresh data dir gives that database; restoring over
// an existing one keeps the old one as a .bak beside it; a restore while the database is
// open (a running server) is refused and changes nothing.
func TestSnapshotAndRestore(t *testing.T) {
	src := open(t, t.TempDir(), nil)
	defer src.Close()
	if _, err := src.CreateWorkspace(storage.WorkspaceInput{Name: "a"}); err != nil {
		t.Fatal(err)
	}
	snap, err := src.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	// A write while the snapshot is open goes through and is not in it.
	done := make(chan error, 1)
	go func() { _, err := src.CreateWorkspace(storage.WorkspaceInput{Name: "b"}); done <- err }()
	waittest.Err(t, done, 5*time.Second, "a write waited for an open snapshot")
	var buf bytes.Buffer
	if _, err := snap.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	snap.Close()
	onlyA := filepath.Join(t.TempDir(), "a.db")
	if err := os.WriteFile(onlyA, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	info, err := storage.CheckFile(onlyA)
	if err != nil {
		t.Fatal(err)
	}
	if info.Size != int64(buf.Len()) || info.SchemaVersion < 5 {
		t.Errorf("CheckFile: %+v", info)
	}

	dir := t.TempDir()
	res, err := storage.Restore(dir, onlyA, storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Previous != "" || res.Path != filepath.Join(dir, storage.FileName) {
		t.Errorf("restore into a fresh dir: %+v", res)
	}
	if got := workspaceNames(t, dir); !slices.Equal(got, []string{"a"}) {
		t.Fatalf("restored workspaces %v, want [a]", got)
	}

	before, err := os.ReadFile(res.Path)
	if err != nil {
		t.Fatal(err)
	}
	both := backupOf(t, src)
	at := time.Date(2026, 11, 24, 10, 30, 0, 0, time.UTC)
	res, err = storage.Restore(dir, both, storage.Options{Now: func() time.Time { return at }})
	if err != nil {
		t.Fatal(err)
	}
	if want := res.Path + ".20261124T103000Z.bak"; res.Previous != want {
		t.Errorf("previous kept as %q, want %q", res.Previous, want)
	}
	if kept, err := os.ReadFile(res.Previous); err != nil || !bytes.Equal(kept, before) {
		t.Errorf("the .bak is not the database it replaced (%v)", err)
	}
	if got := workspaceNames(t, dir); !slices.Equal(got, []string{"a", "b"}) {
		t.Fatalf("restored workspaces %v, want [a b]", got)
	}

	// The database is open (a server runs): refused, nothing changed.
	db := open(t, dir, nil)
	files := dirtest.Names(t, dir)
	_, err = storage.Restore(dir, onlyA, storage.Options{LockTimeout: 100 * time.Millisecond})
	if !errors.Is(err, storage.ErrLocked) {
		t.Fatalf("restore over an open database: %v, want ErrLocked", err)
	}
	if got := dirtest.Names(t, dir); !slices.Equal(got, files) {
		t.Errorf("a refused restore changed the data dir: %v, was %v", got, files)
	}
	if wss, err := db.Workspaces(); err != nil || len(wss) != 2 {
		t.Errorf("the open database after a refused restore: %d workspaces, %v", len(wss), err)
	}
	db.Close()
}

// TestRestoreRefusesDamagedFiles: a truncated backup, one with damaged pages, a file that
// is no database and an empty one are refused with a message naming the file and what is
// wrong, and nothing in the data dir changes.
func TestRestoreRefusesDamagedFiles(t *testing.T) {
	src := open(t, t.TempDir(), nil)
	for _, name := range []string{"a", "b", "c"} {
		if _, err := src.CreateWorkspace(storage.WorkspaceInput{Name: name}); err != nil {
			t.Fatal(err)
		}
	}
	good, err := os.ReadFile(backupOf(t, src))
	src.Close()
	if err != nil {
		t.Fatal(err)
	}
	const page = 4096
	if len(good) < 4*page || len(good)%page != 0 {
		t.Fatalf("a backup of %d bytes; the test expects whole 4 KiB pages", len(good))
	}
	damaged := bytes.Clone(good)
	r := rand.New(rand.NewPCG(1, 2))
	for i := 2 * page; i < len(damaged); i++ { // every page but the two meta pages
		damaged[i] = byte(r.Uint32())
	}
	dir := t.TempDir()
	if _, err := storage.Restore(dir, backupOf(t, open(t, t.TempDir(), nil)), storage.Options{}); err != nil {
		t.Fatal(err)
	}
	cur, err := os.ReadFile(filepath.Join(dir, storage.FileName))
	if err != nil {
		t.Fatal(err)
	}
	files := dirtest.Names(t, dir)
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"truncated", good[:len(good)-page], "truncated"},
		{"damaged pages", damaged, ""},
		{"not a database", []byte("name,size\nfoo,1\n"), ""},
		{"empty", nil, "empty file"},
	} {
		path := filepath.Join(t.TempDir(), strings.ReplaceAll(tc.name, " ", "-")+".db")
		if err := os.WriteFile(path, tc.data, 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := storage.CheckFile(path); !errors.Is(err, storage.ErrBackupInvalid) {
			t.Errorf("%s: CheckFile: %v, want ErrBackupInvalid", tc.name, err)
		}
		_, err := storage.Restore(dir, path, storage.Options{})
		if !errors.Is(err, storage.ErrBackupInvalid) || !strings.Contains(err.Error(), path) ||
			!strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "nothing was changed") {
			t.Errorf("%s: %v", tc.name, err)
		} else {
			t.Logf("%s: %v", tc.name, err)
		}
		if got := dirtest.Names(t, dir); !slices.Equal(got, files) {
			t.Errorf("%s: a refused restore changed the data dir: %v, was %v", tc.name, got, files)
		}
		if now, _ := os.ReadFile(filepath.Join(dir, storage.FileName)); !bytes.Equal(now, cur) {
			t.Errorf("%s: a refused restore changed the database", tc.name)
		}
	}
}

// TestRestoreStartsANewChangeEpoch: a restored database names its task changes with a new
// epoch (its sequence went back to the backup's, so a stream id given before the restore
// must resync, not resume on changes numbered again), and keeps every other secret (signed
// links and webhook signatures stay valid).
func TestRestoreStartsANewChangeEpoch(t *testing.T) {
	src := open(t, t.TempDir(), nil)
	defer src.Close()
	epoch, err := src.TaskChangesEpoch()
	if err != nil {
		t.Fatal(err)
	}
	signing, err := src.Secret("test-signing", 32)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := storage.Restore(dir, backupOf(t, src), storage.Options{}); err != nil {
		t.Fatal(err)
	}
	db := open(t, dir, nil)
	defer db.Close()
	got, err := db.TaskChangesEpoch()
	if err != nil {
		t.Fatal(err)
	}
	if got == epoch || len(got) != len(epoch) {
		t.Errorf("restored database's change epoch %q, the backed-up one's %q: want a new one", got, epoch)
	}
	if kept, err := db.Secret("test-signing", 32); err != nil || !bytes.Equal(kept, signing) {
		t.Errorf("a restore changed another secret (%v)", err)
	}
}
