package storage

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/cutroom/cutroom/model"
)

// The task change log (see the package doc): every transaction that stores a task
// (CreateExport, UpdateExport) also records the task as that commit stored it, and each
// change gets a sequence in the log: commit order on bbolt, an order that keeps each
// task's changes in commit order on a shared database. A change is visible in the log only
// with every change before it, so readers (export's event tail on every node) follow the
// log by sequence and miss none.
//
// On bbolt the change takes the log bucket's next sequence in its own transaction (one
// writer at a time: sequence order is commit order). On a shared database (PostgreSQL)
// that sequence would be one row every task write updates: concurrent writes of different
// tasks would abort each other (16 writers at full speed: a third of the throughput, and
// some writes failing after every retry). There the transaction instead puts the change
// in a waiting bucket under an order stamp (the writing node's clock, PostgresOptions.Now,
// raised above the task's previous stamp so a task's changes keep their order across
// nodes' clocks), and SequenceTaskChanges moves committed waiting changes into the log,
// oldest stamp first, in transactions of its own that contend only with each other.

var (
	// bucketTaskChanges: sequence (8 bytes) -> ExportTask as the commit of that sequence
	// stored it.
	bucketTaskChanges = []byte("task_changes")
	// bucketTaskChangesWaiting (shared databases): order stamp (8 bytes) + task id ->
	// ExportTask, a committed change waiting for its sequence.
	bucketTaskChangesWaiting = []byte("task_changes_waiting")
	// bucketTaskChangeStamps (shared databases): task id -> the order stamp (8 bytes) of
	// its last change.
	bucketTaskChangeStamps = []byte("task_change_stamps")
)

// These buckets are made by the first change, so a file of any schema version may lack them.

// appendTaskChange records a change of task id, stored as val, in tx (see above); created
// says it is the task's first (it has no stamp to read yet).
func (db *DB) appendTaskChange(tx Tx, id, val []byte, created bool) error {
	if !db.Shared() {
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
	stamps, err := tx.CreateBucketIfNotExists(bucketTaskChangeStamps)
	if err != nil {
		return err
	}
	waiting, err := tx.CreateBucketIfNotExists(bucketTaskChangesWaiting)
	if err != nil {
		return err
	}
	stamp := uint64(db.now().UnixNano())
	if !created {
		if prev := stamps.Get(id); len(prev) == 8 {
			stamp = max(stamp, binary.BigEndian.Uint64(prev)+1)
		}
	}
	k := binary.BigEndian.AppendUint64(nil, stamp)
	if err := stamps.Put(id, k); err != nil {
		return err
	}
	return waiting.Put(append(k, id...), val)
}

// MaxSequence bounds the changes one SequenceTaskChanges transaction moves: a call that
// moved fewer left none waiting when it ran.
const MaxSequence = 1000

// SequenceTaskChanges moves the committed changes waiting for a sequence (on a shared
// database) into the change log, oldest order stamp first, and returns how many it moved
// (at most MaxSequence; call again while it moves that many). On bbolt changes take their
// sequence as they commit: it does nothing. Several nodes may call it at once: their
// transactions serialise, and each change is moved once.
func (db *DB) SequenceTaskChanges() (int, error) {
	if !db.Shared() {
		return 0, nil
	}
	waiting := false
	if err := db.view(func(tx Tx) error {
		if b := tx.Bucket(bucketTaskChangesWaiting); b != nil {
			k, _ := b.Cursor().First()
			waiting = k != nil
		}
		return nil
	}); err != nil || !waiting {
		return 0, err
	}
	n := 0
	// One attempt: a move that loses its race to another node's leaves the changes to
	// that node's (they are moved once), where running it again as update does would
	// wait and abort against the same move, up to its 20 attempts.
	err := db.updateOnce(func(tx Tx) error {
		n = 0
		w := tx.Bucket(bucketTaskChangesWaiting)
		if w == nil {
			return nil
		}
		var keys, vals [][]byte
		c := w.Cursor()
		for k, v := c.First(); k != nil && len(keys) < MaxSequence; k, v = c.Next() {
			keys, vals = append(keys, copyBytes(k)), append(vals, copyBytes(v))
		}
		log, err := tx.CreateBucketIfNotExists(bucketTaskChanges)
		if err != nil {
			return err
		}
		// The sequence is read once and set once: a NextSequence per change was a round
		// trip each (and flushed the Put before it), up to 2 x MaxSequence in one
		// serializable transaction every node runs after every task commit.
		seq := log.Sequence()
		for i, k := range keys {
			if err := log.Put(binary.BigEndian.AppendUint64(nil, seq+uint64(i)+1), vals[i]); err != nil {
				return err
			}
			if err := w.Delete(k); err != nil {
				return err
			}
		}
		n = len(keys)
		if n == 0 {
			return nil
		}
		return log.SetSequence(seq + uint64(n))
	})
	if errors.Is(err, errRaceLost) {
		return 0, nil
	}
	return n, err
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
		// Keys first, then the deletes: one batch on PostgreSQL.
		var keys [][]byte
		c := b.Cursor()
		for k, _ := c.First(); len(k) == 8 && binary.BigEndian.Uint64(k) <= upto && len(keys) < maxTrim; k, _ = c.Next() {
			keys = append(keys, copyBytes(k))
		}
		for _, k := range keys {
			if err := b.Delete(k); err != nil {
				return err
			}
		}
		n = len(keys)
		return nil
	})
	return n, err
}

// changesEpochSecret names the change log's epoch among the meta bucket's secrets.
const changesEpochSecret = "task-changes-epoch"

// TaskChangesEpoch returns the id of this database's change log: random, made once and
// kept in the database, so every node over it names a change the same way and a sequence
// of another database is recognised. Restore drops it: a restored database numbers its
// changes again from the backup's sequence, so an id given before the restore must not
// resume on the changes made after it (it resyncs instead).
func (db *DB) TaskChangesEpoch() (string, error) {
	b, err := db.Secret(changesEpochSecret, 6) // not secret: a random value kept once
	if err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

// checkTaskChange checks a record of the change log: a sequence key and a task.
func checkTaskChange(_ Tx, _, k, v []byte) error {
	if len(k) != 8 {
		return fmt.Errorf("key of %d bytes, not a sequence", len(k))
	}
	return checkChangedTask(v)
}

// checkWaitingTaskChange checks a change waiting for its sequence: an order stamp and the
// task's id, and the task.
func checkWaitingTaskChange(_ Tx, _, k, v []byte) error {
	if len(k) <= 8 {
		return fmt.Errorf("key of %d bytes, not an order stamp and a task id", len(k))
	}
	return checkChangedTask(v)
}

// checkTaskChangeStamp checks the order stamp of a task's last change.
func checkTaskChangeStamp(_ Tx, _, _, v []byte) error {
	if len(v) != 8 {
		return fmt.Errorf("an order stamp of %d bytes, not 8", len(v))
	}
	return nil
}

// checkChangedTask checks the task a change holds.
func checkChangedTask(v []byte) error {
	var t model.ExportTask
	if err := decode(v, &t); err != nil {
		return err
	}
	switch {
	case t.ID == "" || t.WorkspaceID == "":
		return errors.New("a task without an id or workspace")
	case !taskStatuses[t.Status]:
		return fmt.Errorf("status %q is none of a task's", t.Status)
	}
	return nil
}
