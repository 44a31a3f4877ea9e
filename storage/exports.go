package storage

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/cutroom/cutroom/model"
	"time"
)

// ExportLimits are the rules CreateExport enforces inside its transaction.
type ExportLimits struct {
	// MaxActive is the most active tasks a workspace may have (the new one included).
	MaxActive int
	// DedupeClientTaskID makes a task with a clientTaskId already used in the workspace
	// return that task instead of creating another.
	DedupeClientTaskID bool
}

func clientKey(workspaceID, clientTaskID string) []byte {
	return append(append([]byte(workspaceID), 0), clientTaskID...)
}

func expiryKey(t time.Time, id string) []byte {
	return append(binary.BigEndian.AppendUint64(nil, uint64(t.UnixNano())), id...)
}

// CreateExport stores a new task, its state snapshot, the idempotency record (when idem is
// not nil), the credit debit and the task's first change (changes.go) in one transaction,
// after checking the workspace's active task count and credit balance. With
// limits.DedupeClientTaskID and a clientTaskId that the workspace used before, it stores
// nothing and returns the earlier task as existing.
// Refusals are a *LimitError (ErrTooManyActive, ErrInsufficientCredits) or
// ErrIdempotencyKeyExists.
func (db *DB) CreateExport(t model.ExportTask, state []byte, idem *IdempotencyRecord, limits ExportLimits) (existing *model.ExportTask, err error) {
	val, err := json.Marshal(t)
	if err != nil {
		return nil, err
	}
	var idemVal []byte
	if idem != nil {
		if idemVal, err = json.Marshal(idem); err != nil {
			return nil, err
		}
	}
	var prior []byte
	err = db.update(func(tx Tx) error {
		prior = nil // the transaction may run again (DB.update)
		clients := tx.Bucket(bucketExportClient)
		if t.ClientTaskID != nil {
			ck := clientKey(t.WorkspaceID, *t.ClientTaskID)
			if id := clients.Get(ck); id != nil && limits.DedupeClientTaskID {
				prior = copyBytes(tx.Bucket(bucketExports).Get(id))
				if prior != nil {
					return nil
				}
			}
		}
		active, err := tx.Bucket(bucketExportActive).CreateBucketIfNotExists([]byte(t.WorkspaceID))
		if err != nil {
			return err
		}
		if limits.MaxActive > 0 { // counted only when limited: a walk of every active task
			n := 0
			c := active.Cursor()
			for k, _ := c.First(); k != nil; k, _ = c.Next() {
				n++
			}
			if n >= limits.MaxActive {
				return &LimitError{Err: ErrTooManyActive, Have: int64(n), Need: int64(limits.MaxActive)}
			}
		}
		if err := debit(tx, t); err != nil {
			return err
		}
		if idem != nil {
			if err := putIdem(tx, idem.Scope, idemVal, db.now()); err != nil {
				return err
			}
		}
		id := []byte(t.ID)
		if err := tx.Bucket(bucketExports).Put(id, val); err != nil {
			return err
		}
		if err := db.appendTaskChange(tx, id, val, true); err != nil {
			return err
		}
		if err := tx.Bucket(bucketExportState).Put(id, state); err != nil {
			return err
		}
		if err := bumpReferences(tx, t.WorkspaceID); err != nil {
			return err
		}
		idx, err := tx.Bucket(bucketExportIndex).CreateBucketIfNotExists([]byte(t.WorkspaceID))
		if err != nil {
			return err
		}
		ok := orderKey(t.CreatedAt, t.ID)
		if err := idx.Put(ok, id); err != nil {
			return err
		}
		if t.ClientTaskID != nil {
			ck := clientKey(t.WorkspaceID, *t.ClientTaskID)
			if clients.Get(ck) == nil {
				if err := clients.Put(ck, id); err != nil {
					return err
				}
			}
		}
		if err := active.Put(id, nil); err != nil {
			return err
		}
		return tx.Bucket(bucketExportQueue).Put(ok, id)
	})
	if err != nil {
		return nil, err
	}
	if prior != nil {
		var p model.ExportTask
		if err := json.Unmarshal(prior, &p); err != nil {
			return nil, err
		}
		return &p, nil
	}
	return nil, nil
}

// debit takes a new task's charge from its workspace's balance, when it has one.
func debit(tx Tx, t model.ExportTask) error {
	b := tx.Bucket(bucketCredits)
	v := b.Get([]byte(t.WorkspaceID))
	limited := len(v) == 8
	if limited != (t.CreditPool == model.PoolWorkspace) {
		return fmt.Errorf("the workspace's credit settings changed while the export was created; try again")
	}
	if !limited {
		return nil
	}
	bal := int64(binary.BigEndian.Uint64(v))
	if bal < t.ChargedCredits {
		return &LimitError{Err: ErrInsufficientCredits, Have: bal, Need: t.ChargedCredits}
	}
	return b.Put([]byte(t.WorkspaceID), binary.BigEndian.AppendUint64(nil, uint64(bal-t.ChargedCredits)))
}

// WorkspaceCredits returns a workspace's credit balance; limited is false when the
// workspace has unlimited credits.
func (db *DB) WorkspaceCredits(workspaceID string) (balance int64, limited bool, err error) {
	err = db.view(func(tx Tx) error {
		if v := tx.Bucket(bucketCredits).Get([]byte(workspaceID)); len(v) == 8 {
			balance, limited = int64(binary.BigEndian.Uint64(v)), true
		}
		return nil
	})
	return balance, limited, err
}

// SetWorkspaceCredits sets a workspace's (by id or name) credit balance; nil makes its
// credits unlimited.
func (db *DB) SetWorkspaceCredits(ref string, balance *int64) (model.Workspace, error) {
	ws, err := db.Workspace(ref)
	if err != nil {
		return model.Workspace{}, err
	}
	if balance != nil && *balance < 0 {
		return model.Workspace{}, ErrCreditsNegative
	}
	return ws, db.update(func(tx Tx) error {
		b := tx.Bucket(bucketCredits)
		if balance == nil {
			return b.Delete([]byte(ws.ID))
		}
		return b.Put([]byte(ws.ID), binary.BigEndian.AppendUint64(nil, uint64(*balance)))
	})
}

// ExportTask returns a task of a workspace.
func (db *DB) ExportTask(workspaceID, id string) (model.ExportTask, error) {
	t, err := db.ExportTaskByID(id)
	if err != nil {
		return model.ExportTask{}, err
	}
	if t.WorkspaceID != workspaceID {
		return model.ExportTask{}, notFound(ErrTaskNotFound, id)
	}
	return t, nil
}

// ExportTaskByID returns a task of any workspace.
func (db *DB) ExportTaskByID(id string) (model.ExportTask, error) {
	raw, err := db.read(bucketExports, []byte(id))
	if err != nil {
		return model.ExportTask{}, err
	}
	return decodeTask(raw, id)
}

// ExportTasksByID returns the tasks of those of ids that exist, by id: read in one
// transaction and one query however many there are.
func (db *DB) ExportTasksByID(ids []string) (map[string]model.ExportTask, error) {
	return readRecords(db, bucketExports, ids, decodeTask)
}

func decodeTask(raw []byte, id string) (model.ExportTask, error) {
	if raw == nil {
		return model.ExportTask{}, notFound(ErrTaskNotFound, id)
	}
	var t model.ExportTask
	if err := json.Unmarshal(raw, &t); err != nil {
		return model.ExportTask{}, err
	}
	return t, nil
}

// ExportState returns the editor state snapshot of a task.
func (db *DB) ExportState(id string) ([]byte, error) {
	var raw []byte
	err := db.view(func(tx Tx) error {
		raw = copyBytes(tx.Bucket(bucketExportState).Get([]byte(id)))
		return nil
	})
	if err == nil && raw == nil {
		err = fmt.Errorf("%w: %s has no state", ErrTaskNotFound, id)
	}
	return raw, err
}

// ExportByClientTaskID returns the task a workspace created with clientTaskID, or nil.
func (db *DB) ExportByClientTaskID(workspaceID, clientTaskID string) (*model.ExportTask, error) {
	var raw []byte
	if err := db.view(func(tx Tx) error {
		if id := tx.Bucket(bucketExportClient).Get(clientKey(workspaceID, clientTaskID)); id != nil {
			raw = copyBytes(tx.Bucket(bucketExports).Get(id))
		}
		return nil
	}); err != nil || raw == nil {
		return nil, err
	}
	t, err := decodeTask(raw, "")
	return &t, err
}

// ListExports returns a page of a workspace's tasks, newest first, optionally only those
// created by one API key, and the cursor of the next page ("" on the last page).
func (db *DB) ListExports(workspaceID string, pageSize int, cursor, createdByKeyID string) ([]model.ExportTask, string, error) {
	return page(db, cursor, pageSize, func(tx Tx) (pageSource, error) {
		tb := tx.Bucket(bucketExports)
		src := pageSource{index: tx.Bucket(bucketExportIndex).Bucket([]byte(workspaceID)), records: tb}
		if createdByKeyID != "" {
			// Only the key id is needed: a substring test on the stored JSON avoids decoding.
			needle := []byte(`"createdByApiKeyId":"` + createdByKeyID + `"`)
			src.keep = func(v []byte) bool { return bytes.Contains(tb.Get(v), needle) }
		}
		return src, nil
	}, func(raw []byte, _ string) (model.ExportTask, error) { return decodeTask(raw, "") })
}

// ErrNoChange is returned by an UpdateExport change function to leave the task as it is.
var ErrNoChange = errors.New("no change")

// UpdateExport applies change to a task with optimistic concurrency: change runs outside
// any transaction on a fresh copy, and the result is written only if the task is unchanged
// since it was read (otherwise change runs again). The outbox entries change returns are
// written in the same transaction, as are the index updates the status change implies and
// the refund when change lowered ChargedCredits, and the task's change (changes.go). When
// change returns ErrNoChange the task is returned as it is, without a write; any other
// error is returned as is. change runs again each time the task changed meanwhile (by
// this process or, on PostgreSQL, another): it must be free of side effects, changing
// nothing but t and answering from t alone.
func (db *DB) UpdateExport(id string, change func(t *model.ExportTask) ([]model.WebhookDelivery, error)) (model.ExportTask, error) {
	for attempt := 0; ; attempt++ {
		raw, err := db.read(bucketExports, []byte(id))
		if err != nil {
			return model.ExportTask{}, err
		}
		old, err := decodeTask(raw, id)
		if err != nil {
			return model.ExportTask{}, err
		}
		t, _ := decodeTask(raw, id)
		events, err := change(&t)
		if errors.Is(err, ErrNoChange) {
			return old, nil
		}
		if err != nil {
			return old, err
		}
		val, err := json.Marshal(t)
		if err != nil {
			return model.ExportTask{}, err
		}
		evVals := make([][]byte, len(events))
		for i, ev := range events {
			if evVals[i], err = json.Marshal(ev); err != nil {
				return model.ExportTask{}, err
			}
		}
		stale := false
		err = db.update(func(tx Tx) error {
			stale = false // the transaction may run again (DB.update)
			b := tx.Bucket(bucketExports)
			if !bytes.Equal(b.Get([]byte(id)), raw) {
				stale = true
				return nil
			}
			if err := b.Put([]byte(id), val); err != nil {
				return err
			}
			if err := db.appendTaskChange(tx, []byte(id), val, false); err != nil {
				return err
			}
			if err := reindex(tx, &old, &t); err != nil {
				return err
			}
			ob := tx.Bucket(bucketOutbox)
			for _, v := range evVals {
				seq, err := ob.NextSequence()
				if err != nil {
					return err
				}
				if err := ob.Put(binary.BigEndian.AppendUint64(nil, seq), v); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return model.ExportTask{}, err
		}
		if !stale {
			return t, nil
		}
		if attempt >= 50 {
			return model.ExportTask{}, errors.New("export task is being changed concurrently; try again")
		}
	}
}

// reindex keeps the active, queue and expiry indexes and the credit balance in step with a
// task's change from old to t.
func reindex(tx Tx, old, t *model.ExportTask) error {
	id := []byte(t.ID)
	ok := orderKey(t.CreatedAt, t.ID)
	if old.Active() && !t.Active() {
		if a := tx.Bucket(bucketExportActive).Bucket([]byte(t.WorkspaceID)); a != nil {
			if err := a.Delete(id); err != nil {
				return err
			}
		}
	}
	q := tx.Bucket(bucketExportQueue)
	if t.Status == model.StatusPending {
		if err := q.Put(ok, id); err != nil {
			return err
		}
	} else if old.Status == model.StatusPending {
		if err := q.Delete(ok); err != nil {
			return err
		}
	}
	ex := tx.Bucket(bucketExportExpiry)
	if old.OutputExpiresAt != nil {
		if err := ex.Delete(expiryKey(*old.OutputExpiresAt, old.ID)); err != nil {
			return err
		}
	}
	if t.Status == model.StatusCompleted && t.OutputExpiresAt != nil && !t.OutputPurged {
		if err := ex.Put(expiryKey(*t.OutputExpiresAt, t.ID), id); err != nil {
			return err
		}
	}
	if refund := old.ChargedCredits - t.ChargedCredits; refund > 0 && t.CreditPool == model.PoolWorkspace {
		cb := tx.Bucket(bucketCredits)
		if v := cb.Get([]byte(t.WorkspaceID)); len(v) == 8 {
			bal := int64(binary.BigEndian.Uint64(v)) + refund
			if err := cb.Put([]byte(t.WorkspaceID), binary.BigEndian.AppendUint64(nil, uint64(bal))); err != nil {
				return err
			}
		}
	}
	return nil
}

// PendingExports returns up to n ids of PENDING tasks, oldest first.
func (db *DB) PendingExports(n int) ([]string, error) {
	var out []string
	err := db.view(func(tx Tx) error {
		c := tx.Bucket(bucketExportQueue).Cursor()
		for k, v := c.First(); k != nil && len(out) < n; k, v = c.Next() {
			out = append(out, string(v))
		}
		return nil
	})
	return out, err
}

// ActiveExports returns the ids of every active task of every workspace.
func (db *DB) ActiveExports() ([]string, error) {
	var out []string
	err := db.view(func(tx Tx) error {
		keys, err := nestedKeys(tx.Bucket(bucketExportActive))
		out = make([]string, len(keys))
		for i, k := range keys {
			out[i] = string(k)
		}
		return err
	})
	return out, err
}

// WorkspaceActiveExports returns the ids of a workspace's active tasks.
func (db *DB) WorkspaceActiveExports(workspaceID string) ([]string, error) {
	var out []string
	err := db.view(func(tx Tx) error {
		b := tx.Bucket(bucketExportActive).Bucket([]byte(workspaceID))
		if b == nil {
			return nil
		}
		return b.ForEach(func(k, _ []byte) error {
			out = append(out, string(k))
			return nil
		})
	})
	return out, err
}

// ExpiredOutputs returns the ids of COMPLETED tasks whose output expired before now and
// has not been purged yet.
func (db *DB) ExpiredOutputs(now time.Time) ([]string, error) {
	var out []string
	limit := uint64(now.UnixNano())
	err := db.view(func(tx Tx) error {
		c := tx.Bucket(bucketExportExpiry).Cursor()
		for k, v := c.First(); k != nil && len(k) >= 8 && binary.BigEndian.Uint64(k) < limit; k, v = c.Next() {
			out = append(out, string(v))
		}
		return nil
	})
	return out, err
}

// PendingWebhooks returns every delivery waiting in the outbox, in the order they were
// enqueued.
func (db *DB) PendingWebhooks() ([]model.WebhookDelivery, error) {
	type kv struct {
		seq uint64
		v   []byte
	}
	var raws []kv
	if err := db.view(func(tx Tx) error {
		return tx.Bucket(bucketOutbox).ForEach(func(k, v []byte) error {
			raws = append(raws, kv{binary.BigEndian.Uint64(k), copyBytes(v)})
			return nil
		})
	}); err != nil {
		return nil, err
	}
	out := make([]model.WebhookDelivery, 0, len(raws))
	for _, r := range raws {
		var d model.WebhookDelivery
		if err := json.Unmarshal(r.v, &d); err != nil {
			return nil, err
		}
		d.Seq = r.seq
		out = append(out, d)
	}
	return out, nil
}

// DeadWebhooks returns the deliveries that were given up, oldest first.
func (db *DB) DeadWebhooks() ([]model.WebhookDelivery, error) {
	out, err := allRecords[model.WebhookDelivery](db, bucketOutboxDead)
	if err != nil || len(out) == 0 {
		return nil, err // nil when there are none
	}
	return out, nil
}

// WebhookDelivered removes a delivered entry from the outbox.
func (db *DB) WebhookDelivered(seq uint64) error {
	return db.update(func(tx Tx) error {
		return tx.Bucket(bucketOutbox).Delete(binary.BigEndian.AppendUint64(nil, seq))
	})
}

// WebhookFailed records a failed attempt of d (whose Attempts, NextAttemptAt and LastError
// the caller updated). With dead, the entry moves out of the outbox to the dead letters.
// With a claim (d.ClaimNode), it writes only while that node holds it (else
// ErrWebhookClaimLost); the entry is left unclaimed.
func (db *DB) WebhookFailed(d model.WebhookDelivery, dead bool) error {
	k := binary.BigEndian.AppendUint64(nil, d.Seq)
	return db.update(func(tx Tx) error {
		ob := tx.Bucket(bucketOutbox)
		raw := ob.Get(k)
		if raw == nil {
			return nil
		}
		d := d
		if held, err := claimHeld(raw, &d); err != nil || !held {
			return cmp.Or(err, ErrWebhookClaimLost)
		}
		val, err := json.Marshal(d)
		if err != nil {
			return err
		}
		if dead {
			if err := ob.Delete(k); err != nil {
				return err
			}
			return tx.Bucket(bucketOutboxDead).Put(k, val)
		}
		return ob.Put(k, val)
	})
}
