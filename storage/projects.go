package storage

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"github.com/cutroom/cutroom/model"
	"time"

	"github.com/google/uuid"
)

// IdempotencyRecord is the stored outcome of a create request made with an
// Idempotency-Key, replayed when the same request comes again. It holds the created
// resource's own JSON and the status it was answered with, not HTTP bytes: the server wraps
// Data in its envelope on the first answer and on every replay alike, so both are the same
// bytes. Records of versions that stored the whole body are converted by migration 5
// (idempotency.go).
type IdempotencyRecord struct {
	Scope       string          `json:"scope"`       // hash of API key id, route and the caller's key
	RequestHash string          `json:"requestHash"` // hash of the request payload
	Status      int             `json:"status"`
	Data        json.RawMessage `json:"data"` // the created resource, as the answer's data
	CreatedAt   time.Time       `json:"createdAt"`
	ExpiresAt   time.Time       `json:"expiresAt"`
}

// orderKey sorts records by creation time, then id; lists walk it newest first.
func orderKey(created time.Time, id string) []byte {
	k := binary.BigEndian.AppendUint64(make([]byte, 0, 24), uint64(created.UnixNano()))
	u, err := uuid.Parse(id)
	if err != nil {
		return append(k, id...)
	}
	return append(k, u[:]...)
}

// EncodeCursor and DecodeCursor turn an order key into the opaque page cursor callers see.
func encodeCursor(k []byte) string { return base64.RawURLEncoding.EncodeToString(k) }

func decodeCursor(c string) ([]byte, error) {
	if c == "" {
		return nil, nil
	}
	k, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil || len(k) < 9 || len(k) > 200 {
		return nil, ErrInvalidCursor
	}
	return k, nil
}

// pageDesc walks an index bucket newest first, starting after cursor, and returns up to n
// values plus the cursor of the next page ("" on the last page). Values are copied.
func pageDesc(b Bucket, cursor []byte, n int, keep func(v []byte) bool) (vals [][]byte, next string) {
	if b == nil {
		return nil, ""
	}
	c := b.Cursor()
	var k, v []byte
	if cursor == nil {
		k, v = c.Last()
	} else {
		k, v = c.Seek(cursor)
		switch {
		case k == nil:
			k, v = c.Last()
		case bytes.Equal(k, cursor):
			k, v = c.Prev()
		default: // Seek landed on the first key after cursor: step back to before it
			k, v = c.Prev()
		}
	}
	var lastKey []byte
	for ; k != nil; k, v = c.Prev() {
		if keep != nil && !keep(v) {
			continue
		}
		if len(vals) == n {
			return vals, encodeCursor(lastKey)
		}
		vals = append(vals, copyBytes(v))
		lastKey = copyBytes(k)
	}
	return vals, ""
}

// CreateProject stores a new project and its state, and the idempotency record of the
// request when there is one, in one transaction. If idem's scope is already recorded it
// stores nothing and returns an error with code IDEMPOTENCY_KEY_EXISTS.
func (db *DB) CreateProject(p model.Project, state []byte, idem *IdempotencyRecord) error {
	val, err := json.Marshal(p)
	if err != nil {
		return err
	}
	var idemVal []byte
	if idem != nil {
		if idemVal, err = json.Marshal(idem); err != nil {
			return err
		}
	}
	return db.update(func(tx Tx) error {
		if idem != nil {
			if err := putIdem(tx, idem.Scope, idemVal, db.now()); err != nil {
				return err
			}
		}
		if err := tx.Bucket(bucketProjects).Put([]byte(p.ID), val); err != nil {
			return err
		}
		if err := tx.Bucket(bucketProjectState).Put([]byte(p.ID), state); err != nil {
			return err
		}
		if err := bumpReferences(tx, p.WorkspaceID); err != nil {
			return err
		}
		idx, err := tx.Bucket(bucketProjectIndex).CreateBucketIfNotExists([]byte(p.WorkspaceID))
		if err != nil {
			return err
		}
		return idx.Put(orderKey(p.CreatedAt, p.ID), []byte(p.ID))
	})
}

// Project returns a project of a workspace, without its state.
func (db *DB) Project(workspaceID, id string) (model.Project, error) {
	raw, err := db.read(bucketProjects, []byte(id))
	if err != nil {
		return model.Project{}, err
	}
	return decodeProject(raw, workspaceID, id)
}

func decodeProject(raw []byte, workspaceID, id string) (model.Project, error) {
	if raw == nil {
		return model.Project{}, notFound(ErrProjectNotFound, id)
	}
	var p model.Project
	if err := json.Unmarshal(raw, &p); err != nil {
		return model.Project{}, err
	}
	if p.WorkspaceID != workspaceID {
		return model.Project{}, notFound(ErrProjectNotFound, id)
	}
	return p, nil
}

// ProjectWithState returns a project of a workspace and its stored state bytes, read in one
// transaction so they belong together.
func (db *DB) ProjectWithState(workspaceID, id string) (model.Project, []byte, error) {
	var raw, state []byte
	if err := db.view(func(tx Tx) error {
		raw = copyBytes(tx.Bucket(bucketProjects).Get([]byte(id)))
		state = copyBytes(tx.Bucket(bucketProjectState).Get([]byte(id)))
		return nil
	}); err != nil {
		return model.Project{}, nil, err
	}
	p, err := decodeProject(raw, workspaceID, id)
	return p, state, err
}

// ListProjects returns a page of a workspace's projects, newest first, and the cursor of the
// next page ("" on the last page).
func (db *DB) ListProjects(workspaceID string, pageSize int, cursor string) ([]model.Project, string, error) {
	return page(db, cursor, pageSize, func(tx Tx) (pageSource, error) {
		return pageSource{index: tx.Bucket(bucketProjectIndex).Bucket([]byte(workspaceID)), records: tx.Bucket(bucketProjects)}, nil
	}, func(raw []byte, id string) (model.Project, error) { return decodeProject(raw, workspaceID, id) })
}

// modifyProject applies change to a project's record with optimistic concurrency: the write
// happens only if the record is unchanged since it was read, else it reads again. also runs
// inside the writing transaction.
func (db *DB) modifyProject(workspaceID, id string, change func(p *model.Project), also func(tx Tx) error) (model.Project, error) {
	for attempt := 0; ; attempt++ {
		raw, err := db.read(bucketProjects, []byte(id))
		if err != nil {
			return model.Project{}, err
		}
		p, err := decodeProject(raw, workspaceID, id)
		if err != nil {
			return model.Project{}, err
		}
		change(&p)
		val, err := json.Marshal(p)
		if err != nil {
			return model.Project{}, err
		}
		stale := false
		err = db.update(func(tx Tx) error {
			stale = false // the transaction may run again (DB.update)
			b := tx.Bucket(bucketProjects)
			cur := b.Get([]byte(id))
			if cur == nil {
				return notFound(ErrProjectNotFound, id)
			}
			if !bytes.Equal(cur, raw) {
				stale = true
				return nil
			}
			if err := b.Put([]byte(id), val); err != nil {
				return err
			}
			if also != nil {
				return also(tx)
			}
			return nil
		})
		if err != nil {
			return model.Project{}, err
		}
		if !stale {
			return p, nil
		}
		if attempt >= 20 {
			return model.Project{}, errors.New("project is being changed concurrently; try again")
		}
	}
}

// PatchProject changes a project's title and/or description. setDescription tells whether
// description (which may be nil, to clear it) is to be written.
func (db *DB) PatchProject(workspaceID, id string, title *string, description *string, setDescription bool) (model.Project, error) {
	now := db.now().UTC()
	return db.modifyProject(workspaceID, id, func(p *model.Project) {
		if title != nil {
			p.Title = *title
		}
		if setDescription {
			p.Description = description
		}
		p.UpdatedAt = now
	}, nil)
}

// SyncProject replaces a project's state and state version.
func (db *DB) SyncProject(workspaceID, id string, state []byte, stateVersion string) (model.Project, error) {
	now := db.now().UTC()
	return db.modifyProject(workspaceID, id, func(p *model.Project) {
		p.StateVersion = stateVersion
		p.UpdatedAt = now
	}, func(tx Tx) error {
		if err := bumpReferences(tx, workspaceID); err != nil {
			return err
		}
		return tx.Bucket(bucketProjectState).Put([]byte(id), state)
	})
}

// DeleteProject removes a project, its state, its asset bindings and its index entry.
func (db *DB) DeleteProject(workspaceID, id string) error {
	p, err := db.Project(workspaceID, id)
	if err != nil {
		return err
	}
	return db.update(func(tx Tx) error {
		if tx.Bucket(bucketProjects).Get([]byte(id)) == nil {
			return notFound(ErrProjectNotFound, id)
		}
		if err := tx.Bucket(bucketProjects).Delete([]byte(id)); err != nil {
			return err
		}
		if err := tx.Bucket(bucketProjectState).Delete([]byte(id)); err != nil {
			return err
		}
		if err := deleteBindings(tx, id); err != nil {
			return err
		}
		if idx := tx.Bucket(bucketProjectIndex).Bucket([]byte(workspaceID)); idx != nil {
			return idx.Delete(orderKey(p.CreatedAt, p.ID))
		}
		return nil
	})
}

func idemExpired(raw []byte, now time.Time) bool {
	var r struct {
		ExpiresAt time.Time `json:"expiresAt"`
	}
	return json.Unmarshal(raw, &r) == nil && !r.ExpiresAt.IsZero() && now.After(r.ExpiresAt)
}

// Idempotency returns the live record of an idempotency scope, or nil.
func (db *DB) Idempotency(scope string) (*IdempotencyRecord, error) {
	var raw []byte
	if err := db.view(func(tx Tx) error {
		raw = copyBytes(tx.Bucket(bucketIdempotency).Get([]byte(scope)))
		return nil
	}); err != nil || raw == nil {
		return nil, err
	}
	var r IdempotencyRecord
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, err
	}
	if db.now().After(r.ExpiresAt) {
		return nil, nil
	}
	return &r, nil
}

// PutIdempotency stores an idempotency record on its own, for routes whose resource is not
// written by storage in the same call. It refuses a scope that is already recorded.
func (db *DB) PutIdempotency(rec IdempotencyRecord) error {
	val, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	return db.update(func(tx Tx) error { return putIdem(tx, rec.Scope, val, db.now()) })
}

func putIdem(tx Tx, scope string, val []byte, now time.Time) error {
	b := tx.Bucket(bucketIdempotency)
	if old := b.Get([]byte(scope)); old != nil && !idemExpired(old, now) {
		return ErrIdempotencyKeyExists
	}
	return b.Put([]byte(scope), val)
}

// SweepIdempotency deletes expired idempotency records and returns how many it deleted.
func (db *DB) SweepIdempotency() (int, error) {
	now := db.now()
	var expired [][]byte
	if err := db.view(func(tx Tx) error {
		return tx.Bucket(bucketIdempotency).ForEach(func(k, v []byte) error {
			if idemExpired(v, now) {
				expired = append(expired, copyBytes(k))
			}
			return nil
		})
	}); err != nil || len(expired) == 0 {
		return 0, err
	}
	err := db.update(func(tx Tx) error {
		b := tx.Bucket(bucketIdempotency)
		for _, k := range expired {
			if v := b.Get(k); v != nil && idemExpired(v, now) {
				if err := b.Delete(k); err != nil {
					return err
				}
			}
		}
		return nil
	})
	return len(expired), err
}
