package storage_test

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cutroom/cutroom/internal/teststore"
	"github.com/cutroom/cutroom/model"
	"github.com/cutroom/cutroom/storage"
	"github.com/google/uuid"
	bolt "go.etcd.io/bbolt"
)

// populatedBackup returns the bytes of a backup of a database with a bit of every record
// (teststore.Backup), and what a reader needs to find them.
func populatedBackup(t testing.TB) ([]byte, teststore.Facts) {
	t.Helper()
	data, facts, err := teststore.Backup(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return data, facts
}

// restoreAndRead restores the backup data into a fresh data dir: when the restore takes
// it, the database opens and every read the server makes of it succeeds; when it refuses
// it, the refusal is ErrBackupInvalid with words, and nothing is in the data dir. It
// returns the refusal.
func restoreAndRead(t testing.TB, data []byte, facts teststore.Facts) error {
	t.Helper()
	src := filepath.Join(t.TempDir(), "backup.db")
	if err := os.WriteFile(src, data, 0o600); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	_, err := storage.Restore(dir, src, storage.Options{})
	if err != nil {
		if !errors.Is(err, storage.ErrBackupInvalid) || !strings.Contains(err.Error(), "nothing was changed") {
			t.Fatalf("a refusal that is not ErrBackupInvalid: %v", err)
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 0 {
			t.Fatalf("a refused restore left %d files in the data dir", len(ents))
		}
		return err
	}
	db, err := storage.Open(dir, storage.Options{})
	if err != nil {
		t.Fatalf("restored, but the database does not open: %v", err)
	}
	defer db.Close()
	if err := teststore.ReadAll(db, facts); err != nil {
		t.Fatalf("restored, but a read fails: %v", err)
	}
	return nil
}

// TestCheckFileReadsRecords: a backup of a database with every kind of record checks
// clean, restores and reads; a record changed, dropped or added behind the store's back
// (a byte of a record, an index entry without its record, a state that is not JSON, a
// missing or foreign bucket, an asset file key outside its directory, an unknown task
// status) and a truncated file are refused, saying which record of which bucket.
func TestCheckFileReadsRecords(t *testing.T) {
	good, facts := populatedBackup(t)
	if err := restoreAndRead(t, good, facts); err != nil {
		t.Fatalf("the backup of a sound database: %v", err)
	}
	first := func(b *bolt.Bucket) (k, v []byte) { return b.Cursor().First() }
	for _, tc := range []struct {
		name, want string
		change     func(tx *bolt.Tx) error
	}{
		{"a project's JSON cut short", `in bucket "projects" cannot be read`, func(tx *bolt.Tx) error {
			b := tx.Bucket([]byte("projects"))
			k, v := first(b)
			return b.Put(k, v[:len(v)/2])
		}},
		{"a task gone, its indexes kept", `in bucket "export_state": the state of no record`, func(tx *bolt.Tx) error {
			k, _ := first(tx.Bucket([]byte("exports")))
			return tx.Bucket([]byte("exports")).Delete(k)
		}},
		{"a state that is not JSON", `in bucket "project_state" cannot be read`, func(tx *bolt.Tx) error {
			b := tx.Bucket([]byte("project_state"))
			k, _ := first(b)
			return b.Put(k, []byte(`{"tracks":[}`))
		}},
		{"an unknown task status", `status "DONE" is none of a task's`, func(tx *bolt.Tx) error {
			b := tx.Bucket([]byte("exports"))
			k, v := first(b)
			return b.Put(k, bytes.Replace(v, []byte(`"status":"`), []byte(`"status":"DONE","was":"`), 1))
		}},
		{"an asset file key outside its directory", `its file key "assets/../../etc/passwd"`, func(tx *bolt.Tx) error {
			b := tx.Bucket([]byte("assets"))
			k, v := first(b)
			i := bytes.Index(v, []byte(`"fileKey":"`)) + len(`"fileKey":"`)
			j := i + bytes.IndexByte(v[i:], '"')
			return b.Put(k, append(append(append([]byte{}, v[:i]...), "assets/../../etc/passwd"...), v[j:]...))
		}},
		{"a missing bucket", `bucket "export_queue" is missing`, func(tx *bolt.Tx) error {
			return tx.DeleteBucket([]byte("export_queue"))
		}},
		{"a foreign bucket", `bucket "extra" is not cutroom's`, func(tx *bolt.Tx) error {
			_, err := tx.CreateBucket([]byte("extra"))
			return err
		}},
		{"a live key whose hash index is gone", `a live key whose hash is not in bucket "api_key_hash"`, func(tx *bolt.Tx) error {
			k, _ := first(tx.Bucket([]byte("api_key_hash")))
			return tx.Bucket([]byte("api_key_hash")).Delete(k)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "changed.db")
			if err := os.WriteFile(path, good, 0o600); err != nil {
				t.Fatal(err)
			}
			b, err := bolt.Open(path, 0o600, nil)
			if err != nil {
				t.Fatal(err)
			}
			err = b.Update(tc.change)
			b.Close()
			if err != nil {
				t.Fatal(err)
			}
			changed, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			err = restoreAndRead(t, changed, facts)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("restore: %v, want a refusal saying %s", err, tc.want)
			}
			t.Log(err)
		})
	}
	for _, n := range []int{len(good) / 2, len(good) - 4096, 3 * 4096} {
		err := restoreAndRead(t, good[:n], facts)
		if want := "truncated: " + itoa(n) + " of " + itoa(len(good)) + " bytes"; err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("cut at %d: %v, want %q", n, err, want)
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestRestoreMutatedBackups: 300 copies of a real backup, each with 1 to 8 bytes changed
// at random places (a fixed seed): every one is either refused with ErrBackupInvalid and
// words, or restored into a database that opens and answers every read the server makes.
func TestRestoreMutatedBackups(t *testing.T) {
	good, facts := populatedBackup(t)
	r := rand.New(rand.NewPCG(26, 6))
	refused := map[string]int{}
	taken := 0
	for range 300 {
		err := restoreAndRead(t, teststore.Damage(r, good), facts)
		if err == nil {
			taken++
			continue
		}
		kind := "other"
		for _, k := range []string{"truncated", "damaged pages", "consistency check", "cannot be read", "in bucket", "bucket"} {
			if strings.Contains(err.Error(), k) {
				kind = k
				break
			}
		}
		refused[kind]++
		if kind == "other" {
			t.Logf("refused: %v", err)
		}
	}
	t.Logf("restored %d of 300 (each then read in full); refused by kind: %v", taken, refused)
}

// FuzzCheckFile: whatever the bytes of a backup, CheckFile and Restore neither crash nor
// take a file whose database does not open or fails a read the server makes. The seed is a
// real backup of a database with every kind of record.
func FuzzCheckFile(f *testing.F) {
	good, facts := populatedBackup(f)
	f.Add(good)
	f.Fuzz(func(t *testing.T, data []byte) {
		_ = restoreAndRead(t, data, facts)
	})
}

// TestCheckFileLargeDatabase: a database whose buckets span branch pages, with values
// over many overflow pages (states up to 200 KB) and nested buckets, checks clean: the
// page walk reads bbolt's trees as bbolt writes them.
func TestCheckFileLargeDatabase(t *testing.T) {
	db := open(t, t.TempDir(), nil)
	defer db.Close()
	ws, err := db.CreateWorkspace(storage.WorkspaceInput{Name: "w"})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 1))
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 400 {
		state := `{"pad":"` + strings.Repeat("x", r.IntN(200<<10)) + `"}`
		at = at.Add(time.Second)
		if err := db.CreateProject(model.Project{ID: uuid.NewString(), WorkspaceID: ws.ID, Title: "p" + strconv.Itoa(i),
			CreatedAt: at, UpdatedAt: at}, []byte(state), nil); err != nil {
			t.Fatal(err)
		}
	}
	path := backupOf(t, db)
	info, err := storage.CheckFile(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d bytes check clean", info.Size)
}
