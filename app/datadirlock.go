package app

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// DataDirLockFile is the file in the data dir a serving node over a shared database
// (Config.Database) holds locked. On bbolt the database file's own lock keeps a second
// process off the data dir; PostgreSQL takes no lock there, yet a node's data dir holds what
// is its alone (the caches, the embedded NATS store, server.json, the files without a shared
// --blob-store), so a second node started on it by mistake would share them silently.
const DataDirLockFile = "cutroom.lock"

// errLockBusy is lockFile's error when another process holds the lock.
var errLockBusy = errors.New("held by another process")

// LockDataDir keeps a second serving node off the data dir when the records are in a
// shared database: it takes DataDirLockFile's lock (flock; LockFileEx on Windows), waiting
// LockTimeout for a process that holds it, which fails with an InUseError as a bbolt data
// dir's lock does (so serve --attach finds the running node). The lock is released by Close,
// or when the process ends however it ends. On bbolt it does nothing: the database file's
// lock, taken by OpenDB, is the data dir's. Admin commands take no lock: on a shared
// database they run beside the nodes.
func (a *App) LockDataDir() error {
	if a.cfg.Database == "" || a.cfg.DataDir == "" || a.dirLock != nil {
		return nil
	}
	if err := os.MkdirAll(a.cfg.DataDir, 0o750); err != nil {
		return fmt.Errorf("create data dir: %w", err)
	}
	path := filepath.Join(a.cfg.DataDir, DataDirLockFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("open the data dir's lock: %w", err)
	}
	deadline := time.Now().Add(a.cfg.LockTimeout)
	for {
		err = lockFile(f)
		if err == nil {
			a.dirLock = f
			return nil
		}
		if !errors.Is(err, errLockBusy) || time.Now().After(deadline) {
			_ = f.Close()
			if errors.Is(err, errLockBusy) {
				return inUse(a.cfg.DataDir)
			}
			return fmt.Errorf("lock %s: %w", path, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// unlockDataDir releases LockDataDir's lock (closing the file releases it).
func (a *App) unlockDataDir() {
	if a.dirLock != nil {
		_ = a.dirLock.Close()
		a.dirLock = nil
	}
}
