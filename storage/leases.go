package storage

import (
	"encoding/json"
	"time"

	"github.com/cutroom/cutroom/model"
)

// A LostLease is a task whose lease a node tried to renew and no longer holds.
type LostLease struct {
	ID string
	// Ended is true when the task is no longer active: it was canceled, it ended or it is
	// gone; false when another node took it (its lease expired: the task was requeued, and
	// may be PENDING or PROCESSING under another lease now).
	Ended bool
	// Holder is the node that holds the task's lease now ("" when none does).
	Holder string
}

// RenewLeases extends the leases node holds on the tasks ids to until, in one write
// transaction, and returns the tasks whose lease node no longer holds: not PROCESSING any
// more, or PROCESSING under another node's lease. A lease that expired but that no other
// node took is still node's, and renewed. The tasks are read in one query (getMany) and
// written in one batch, however many there are.
func (db *DB) RenewLeases(node string, ids []string, until time.Time) ([]LostLease, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	keys := stringKeys(ids)
	var lost []LostLease
	err := db.update(func(tx Tx) error {
		lost = lost[:0]
		b := tx.Bucket(bucketExports)
		for i, raw := range getMany(b, keys) {
			id := ids[i]
			if raw == nil {
				lost = append(lost, LostLease{ID: id, Ended: true})
				continue
			}
			var t model.ExportTask
			if err := json.Unmarshal(raw, &t); err != nil {
				return err
			}
			if t.Status != model.StatusProcessing || t.LeaseNode != node {
				lost = append(lost, LostLease{ID: id, Ended: !t.Active(), Holder: t.LeaseNode})
				continue
			}
			exp := until.UTC()
			t.LeaseExpiresAt = &exp
			val, err := json.Marshal(t)
			if err != nil {
				return err
			}
			if err := b.Put(keys[i], val); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return lost, nil
}

// ActiveExportTasks returns every active task (PENDING, PROCESSING, PAUSED) of every
// workspace, read in one transaction: what the schedulers look through for leases that
// expired. The index and the tasks are read in a query each, however many there are.
func (db *DB) ActiveExportTasks() ([]model.ExportTask, error) {
	var keys, raws [][]byte
	err := db.view(func(tx Tx) error {
		var err error
		if keys, err = nestedKeys(tx.Bucket(bucketExportActive)); err != nil {
			return err
		}
		raws = getMany(tx.Bucket(bucketExports), keys)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return decodeEach(raws, func(i int, raw []byte) (model.ExportTask, error) { return decodeTask(raw, string(keys[i])) })
}
