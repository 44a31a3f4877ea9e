package storage

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Online backups (`cutroom backup`) and their restore (`cutroom restore`).
//
// A backup is a bbolt read transaction's WriteTo: a consistent copy of the database as of the
// moment the transaction began, written while writers go on (bbolt writers never wait for
// readers, except to grow the memory map; Open maps initialMmapSize up front so that this
// happens only once the database outgrows it). A restore checks a candidate file in full
// (CheckFile) before anything in the data dir changes, keeps the previous database beside it
// and replaces it atomically.

// ErrBackupInvalid is CheckFile's (and Restore's) refusal of a file that is not a sound
// cutroom database; the message says what is wrong.
var ErrBackupInvalid = errors.New("not a sound cutroom database")

// Snapshot is a consistent view of the database for a backup: a bbolt read transaction. It
// holds no lock writers wait for; Close it as soon as it is written (pages freed while it is
// open cannot be reused, so the file grows meanwhile).
type Snapshot struct {
	tx *bolt.Tx
}

// Snapshot begins a backup of the database as it is now.
func (db *DB) Snapshot() (*Snapshot, error) {
	if db.bolt == nil {
		return nil, errPostgresBackup
	}
	tx, err := db.bolt.Begin(false)
	if err != nil {
		return nil, err
	}
	return &Snapshot{tx: tx}, nil
}

// Size is the number of bytes WriteTo writes.
func (s *Snapshot) Size() int64 { return s.tx.Size() }

// SchemaVersion is the snapshot's schema version (the migrations applied).
func (s *Snapshot) SchemaVersion() int { return schemaVersion(boltTx{s.tx}) }

// WriteTo writes the snapshot, a complete database file, to w. This is the one transaction
// that does I/O (house rule 6): it reads only, and writers do not wait for it.
func (s *Snapshot) WriteTo(w io.Writer) (int64, error) { return s.tx.WriteTo(w) }

// Close ends the snapshot's transaction.
func (s *Snapshot) Close() error { return s.tx.Rollback() }

func schemaVersion(tx Tx) int {
	meta := tx.Bucket(bucketMeta)
	if meta == nil {
		return -1
	}
	if v := meta.Get(keySchemaVersion); len(v) == 8 {
		return int(binary.BigEndian.Uint64(v))
	}
	return -1
}

// FileInfo describes a database file CheckFile found sound.
type FileInfo struct {
	// Size is the database's size in bytes (the file may be longer: bbolt grows it ahead).
	Size int64
	// SchemaVersion is the number of migrations applied to it; older versions are migrated
	// when the server opens it.
	SchemaVersion int
}

// CheckFile checks that the file at path is a sound cutroom database that this cutroom can
// open and serve: a bbolt file whose meta pages are valid and whose size holds every page
// they count, every bucket, key and value readable, bbolt's consistency check (tx.Check)
// clean, a schema version no newer than this cutroom's with every bucket it implies, and
// every record decoded as the store decodes it and agreeing with the indexes (records.go).
// It opens the file read-only and never changes it. A refusal wraps ErrBackupInvalid and
// says what is wrong; a PostgreSQL URL is refused with ErrNotBBolt.
func CheckFile(path string) (FileInfo, error) {
	if IsPostgresURL(path) {
		return FileInfo{}, errPostgresBackup
	}
	info, err := checkFile(path)
	if err != nil && !errors.Is(err, ErrLocked) && !errors.Is(err, os.ErrNotExist) {
		return FileInfo{}, fmt.Errorf("%w: %s: %v", ErrBackupInvalid, path, err)
	}
	return info, err
}

// checkFile is CheckFile; its refusals say what is wrong, without the path.
func checkFile(path string) (FileInfo, error) {
	st, err := os.Stat(path)
	if err != nil {
		return FileInfo{}, err
	}
	if !st.Mode().IsRegular() {
		return FileInfo{}, errors.New("not a regular file")
	}
	if st.Size() == 0 { // bbolt would try to initialise it
		return FileInfo{}, errors.New("empty file")
	}
	// The pages first, read from the file: a truncated file (an interrupted copy), a page
	// past its end or a tree that loops would fault or hang bbolt (pages.go).
	var info FileInfo
	if info.Size, err = checkPages(path, st.Size()); err != nil {
		return FileInfo{}, err
	}
	// The free list is read at open (PreLoadFreelist), here, where damage to it is
	// recovered as an error, not in bbolt's check goroutine.
	err = openGuarded(path, func(tx *bolt.Tx) error {
		if err := guard(func() error { return walk(tx) }); err != nil {
			return err
		}
		var problems []string
		for err := range tx.Check() {
			if len(problems) < 5 {
				problems = append(problems, err.Error())
			}
		}
		if len(problems) > 0 {
			return fmt.Errorf("consistency check failed: %s", strings.Join(problems, "; "))
		}
		info.SchemaVersion = schemaVersion(boltTx{tx})
		switch {
		case info.SchemaVersion < 0:
			return errors.New("no cutroom schema version: not a cutroom database")
		case info.SchemaVersion > len(migrations):
			return fmt.Errorf("schema version %d is newer than this cutroom's (%d): restore it with the cutroom that made it, or upgrade", info.SchemaVersion, len(migrations))
		}
		return guard(func() error { return checkRecords(boltTx{tx}, info.SchemaVersion) })
	})
	return info, err
}

// openGuarded opens the bbolt file at path read-only, its free list loaded, and runs fn in
// a read transaction, under guard.
func openGuarded(path string, fn func(tx *bolt.Tx) error) error {
	var b *bolt.DB
	err := guard(func() (err error) {
		b, err = bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, Timeout: time.Second, PreLoadFreelist: true})
		return err
	})
	if errors.Is(err, bolt.ErrTimeout) {
		return fmt.Errorf("%w: %s is in use", ErrLocked, path)
	}
	if err != nil {
		return err
	}
	defer b.Close()
	return guard(func() error { return b.View(fn) })
}

// guard runs fn, turning a panic or a memory fault (bbolt reading a damaged page) into an
// error. walk says where it was (*pageWalk).
func guard(fn func() error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("damaged pages: bbolt failed to read them (%v)", r)
			if pw, ok := r.(pageWalk); ok {
				err = pw
			}
		}
	}()
	return fn()
}

// pageWalk is a fault of bbolt while walk read a bucket.
type pageWalk struct {
	where string
	cause any
}

func (p pageWalk) Error() string {
	return fmt.Sprintf("damaged pages in bucket %s: bbolt failed to read them (%v)", p.where, p.cause)
}

// walk reads every bucket, key and value, so that a damaged page is found here (under
// guard) before bbolt's check, which runs in a goroutine of its own where a panic would end
// the process, reads the same pages. A fault names the bucket it was reading.
func walk(tx *bolt.Tx) error {
	var crc uint32
	var visit func(where string, b *bolt.Bucket) error
	visit = func(where string, b *bolt.Bucket) error {
		defer func() {
			if r := recover(); r != nil {
				if _, inner := r.(pageWalk); inner {
					panic(r)
				}
				panic(pageWalk{where: where, cause: r})
			}
		}()
		return b.ForEach(func(k, v []byte) error {
			if v == nil {
				child := b.Bucket(k)
				if child == nil {
					return fmt.Errorf("bucket %s: key %s has no value and is no bucket", where, keyString(k))
				}
				return visit(where+"/"+keyString(k), child)
			}
			// every byte of the value read (its overflow pages), by a call the compiler keeps
			crc = crc32.Update(crc, crc32.IEEETable, v)
			return nil
		})
	}
	err := tx.ForEach(func(name []byte, b *bolt.Bucket) error {
		if b == nil {
			return fmt.Errorf("top-level key %s is not a bucket", keyString(name))
		}
		return visit(keyString(name), b)
	})
	_ = crc
	return err
}

// Restored describes what Restore did.
type Restored struct {
	FileInfo
	// Path is the database file put in place.
	Path string
	// Previous is where the database it replaced is kept ("" when there was none).
	Previous string
}

// Restore puts the database file src in place as dataDir's database, with the server
// stopped: it copies src into the data dir under a temporary name (synced), checks the copy
// (CheckFile), takes the database's lock (ErrLocked while a server holds it), keeps the
// current database as <name>.<UTC time>.bak beside it (a hard link, or a copy where links are
// not supported), and renames the copy over it. The database file is never missing or
// partly written; on any refusal nothing in the data dir has changed. opts.LockTimeout
// bounds the wait for the lock, opts.Now names the .bak file.
func Restore(dataDir, src string, opts Options) (Restored, error) {
	if IsPostgresURL(src) || IsPostgresURL(dataDir) {
		return Restored{}, errPostgresBackup
	}
	if opts.LockTimeout <= 0 {
		opts.LockTimeout = time.Second
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if err := os.MkdirAll(dataDir, 0o750); err != nil {
		return Restored{}, fmt.Errorf("create data dir: %w", err)
	}
	dst := filepath.Join(dataDir, FileName)
	tmp, err := copyToTemp(src, dataDir)
	if err != nil {
		return Restored{}, err
	}
	defer os.Remove(tmp) // after the rename, there is nothing there
	info, err := checkFile(tmp)
	if err != nil {
		return Restored{}, fmt.Errorf("%w: %s: %v (nothing was changed)", ErrBackupInvalid, src, err)
	}
	if err := newChangesEpoch(tmp); err != nil {
		return Restored{}, fmt.Errorf("restore %s: %w (nothing was changed)", src, err)
	}
	res := Restored{FileInfo: info, Path: dst}
	if _, err := os.Stat(dst); err == nil {
		// The current database's lock: a read-only open takes bbolt's shared lock, which
		// a running server's exclusive one refuses. It is held until the swap is done.
		cur, err := bolt.Open(dst, 0o600, &bolt.Options{ReadOnly: true, Timeout: opts.LockTimeout})
		if errors.Is(err, bolt.ErrTimeout) {
			return Restored{}, fmt.Errorf("%w: %s is in use (stop `cutroom serve` on this data dir before restoring; nothing was changed)", ErrLocked, dst)
		}
		if err == nil {
			defer cur.Close()
		} // a current database bbolt cannot open is kept all the same
		res.Previous = fmt.Sprintf("%s.%s.bak", dst, opts.Now().UTC().Format("20060102T150405Z"))
		if err := keepPrevious(dst, res.Previous); err != nil {
			return Restored{}, fmt.Errorf("keep the current database: %w (nothing was changed)", err)
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return Restored{}, err
	}
	if err := os.Rename(tmp, dst); err != nil {
		return Restored{}, fmt.Errorf("put the restored database in place: %w", err)
	}
	return res, syncDir(dataDir)
}

// newChangesEpoch drops the task change log's epoch from the database file at path (a
// restore's copy), so the restored database makes a new one at its first start: the
// sequence goes back to the backup's, and a stream id given before the restore names a
// change the restored database numbers again.
func newChangesEpoch(path string) error {
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		return err
	}
	err = db.Update(func(tx *bolt.Tx) error {
		if b := tx.Bucket(bucketMeta); b != nil {
			return b.Delete(secretKey(changesEpochSecret))
		}
		return nil
	})
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	return err
}

// copyToTemp copies src into a synced temporary file in dir and returns its path.
func copyToTemp(src, dir string) (string, error) {
	in, err := os.Open(src)
	if err != nil {
		return "", err
	}
	defer in.Close()
	out, err := os.CreateTemp(dir, "."+FileName+".restore-*")
	if err != nil {
		return "", err
	}
	_, err = io.Copy(out, in)
	if err == nil {
		err = out.Sync()
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(out.Name(), 0o600)
	}
	if err != nil {
		_ = os.Remove(out.Name())
		return "", fmt.Errorf("copy %s into %s: %w", src, dir, err)
	}
	return out.Name(), nil
}

// keepPrevious makes bak a second name of the database file cur (a copy where hard links
// are not supported), synced, so cur can be replaced.
func keepPrevious(cur, bak string) error {
	if err := os.Link(cur, bak); err == nil {
		return syncDir(filepath.Dir(bak))
	}
	tmp, err := copyToTemp(cur, filepath.Dir(bak))
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, bak); err != nil {
		_ = os.Remove(tmp)
		return err
	}
	return syncDir(filepath.Dir(bak))
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
