package blob

import (
	"bufio"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// IndexName is the file under Config.Root that lists, one key a line, the local copies
// known to be in the object store (put or fetched by a Store). A copy it does not list (a
// file of an install from before the object store, not yet pushed) is never evicted: it
// may be the only copy. A line lost in a crash only keeps a copy longer.
const IndexName = "blob-store.index"

func (s *Store) indexPath() string { return filepath.Join(s.cfg.Root, IndexName) }

// readIndex returns the keys the index lists (none when there is no index).
func (s *Store) readIndex() (map[string]bool, error) {
	out := map[string]bool{}
	f, err := os.Open(s.indexPath())
	if errors.Is(err, fs.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if k := strings.TrimSpace(sc.Text()); k != "" {
			out[k] = true
		}
	}
	return out, sc.Err()
}

// rewriteIndex replaces the index with the keys of the copies the object store holds
// (temp file, synced, renamed): the keys of copies gone since are dropped.
func (s *Store) rewriteIndex() error {
	keys := s.copies.Evictable()
	sort.Strings(keys)
	tmp, err := os.CreateTemp(s.cfg.Root, "."+IndexName+"-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	w := bufio.NewWriter(tmp)
	for _, k := range keys {
		_, _ = w.WriteString(k + "\n")
	}
	err = w.Flush()
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Rename(tmp.Name(), s.indexPath())
}

// confirm records in the index that the object store holds key's object: its copy may be
// evicted, after a restart too. A failed append only keeps the copy after a restart.
func (s *Store) confirm(key string) {
	s.indexMu.Lock()
	defer s.indexMu.Unlock()
	f, err := os.OpenFile(s.indexPath(), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o640)
	if err != nil {
		s.log.Warn("blob: record a copy in the index", "err", err)
		return
	}
	if _, err := f.WriteString(key + "\n"); err != nil {
		s.log.Warn("blob: record a copy in the index", "err", err)
	}
	_ = f.Close()
}
