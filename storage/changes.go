package storage

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/cutroom/cutroom/model"
)

// The task change log (see the package doc): every transaction that stores a task
// (CreateExport, UpdateExport) also appends the task as that commit stored it under the
// next sequence of the log's bucket. The sequence is part of the transaction, so sequence
// order is commit order and a change is visible only with every change before it; readers
// (export's event tail on every node) follow the log by sequence.

// bucketTaskChanges: sequence (8 bytes) -> ExportTask as the commit of that sequence stored
// it. Made by the first change, so a file of any schema version may lack it.
var bucketTaskChanges = []byte("task_changes")

// appendTaskChange appends a task's stored JSON (val) to the change log in tx.
func appendTaskChange(tx Tx, val []byte) error {
	b, err := tx.CreateBucketIfNotExists(bucketTaskChanges)
	if err != nil {
		return err
	}
	seq, err := b.NextSequence()
	if err != nil {
		return err
	}
	return b.Put(binary.BigEndian.AppendUint64(nil, seq), val)
}

// TaskChange is one committed change of an export task: the task as that commit stored it.
type TaskChange struct {
	Seq  uint64
	Task model.ExportTask
}

// TaskChangeLog is a read of the task change log.
type TaskChangeLog struct {
	// Changes are those after the sequence asked for, oldest first.
	Changes []TaskChange
	// Oldest is the sequence of the oldest change the log still holds (0 when it holds
	// none); the changes before it were trimmed.
	Oldest uint64
	// Last is the sequence of the last change appended (0 before any).
	Last uint64
}

// TaskChanges reads up to max changes after sequence after from the task change log.
func (db *DB) TaskChanges(after uint64, max int) (TaskChangeLog, error) {
	var out TaskChangeLog
	var raws [][]byte
	err := db.view(func(tx Tx) error {
		out, raws = TaskChangeLog{}, nil
		b := tx.Bucket(bucketTaskChanges)
		if b == nil {
			return nil
		}
		out.Last = b.Sequence()
		c := b.Cursor()
		if k, _ := c.First(); len(k) == 8 {
			out.Oldest = binary.BigEndian.Uint64(k)
		}
		for k, v := c.Seek(binary.BigEndian.AppendUint64(nil, after+1)); k != nil && len(raws) < max; k, v = c.Next() {
			out.Changes = append(out.Changes, TaskChange{Seq: binary.BigEndian.Uint64(k)})
			raws = append(raws, copyBytes(v))
		}
		return nil
	})
	if err != nil {
		return TaskChangeLog{}, err
	}
	for i, raw := range raws {
		if out.Changes[i].Task, err = decodeTask(raw, ""); err != nil {
			return TaskChangeLog{}, fmt.Errorf("task change %d: %w", out.Changes[i].Seq, err)
		}
	}
	return out, nil
}

// maxTrim bounds the changes one TrimTaskChanges transaction deletes.
const maxTrim = 10000

// TrimTaskChanges deletes the changes of the log up to sequence upto (at most maxTrim of
// them, the oldest) and returns how many it deleted.
func (db *DB) TrimTaskChanges(upto uint64) (int, error) {
	n := 0
	err := db.update(func(tx Tx) error {
		n = 0
		b := tx.Bucket(bucketTaskChanges)
		if b == nil {
			return nil
		}
		c := b.Cursor()
		for k, _ := c.First(); len(k) == 8 && binary.BigEndian.Uint64(k) <= upto && n < maxTrim; k, _ = c.First() {
			if err := c.Delete(); err != nil {
				return err
			}
			n++
		}
		return nil
	})
	return n, err
}

// TaskChangesEpoch returns the id of this database's change log: random, made once and
// kept in the database, so every node over it names a change the same way and a sequence
// of another database is recognised.
func (db *DB) TaskChangesEpoch() (string, error) {
	b, err := db.Secret("task-changes-epoch", 6) // not secret: a random value kept once
	if err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

// checkTaskChange checks a record of the change log: a sequence key and a task.
func checkTaskChange(_ Tx, _, k, v []byte) error {
	var t model.ExportTask
	if err := decode(v, &t); err != nil {
		return err
	}
	switch {
	case len(k) != 8:
		return fmt.Errorf("key of %d bytes, not a sequence", len(k))
	case t.ID == "" || t.WorkspaceID == "":
		return errors.New("a task without an id or workspace")
	case !taskStatuses[t.Status]:
		return fmt.Errorf("status %q is none of a task's", t.Status)
	}
	return nil
}
