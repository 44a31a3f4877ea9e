package storage

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"encoding/json"
	"sort"

	"github.com/cutroom/cutroom/model"
)

// WebhookSucceeded records the delivery of d (whose History and DeliveredAt the caller set):
// the entry leaves the outbox and is kept, by task, for TaskWebhooks.
// With a claim (d.ClaimNode), it writes only while that node holds it (else
// ErrWebhookClaimLost).
func (db *DB) WebhookSucceeded(d model.WebhookDelivery) error {
	seq := binary.BigEndian.AppendUint64(nil, d.Seq)
	return db.update(func(tx Tx) error {
		d := d
		if held, err := claimHeld(tx.Bucket(bucketOutbox).Get(seq), &d); err != nil || !held {
			return cmp.Or(err, ErrWebhookClaimLost)
		}
		val, err := json.Marshal(d)
		if err != nil {
			return err
		}
		if err := tx.Bucket(bucketOutbox).Delete(seq); err != nil {
			return err
		}
		done, err := tx.CreateBucketIfNotExists(bucketOutboxDone)
		if err != nil {
			return err
		}
		return done.Put(append([]byte(d.TaskID), seq...), val)
	})
}

// TaskWebhooks returns the webhook events of a task, in the order they were enqueued: those
// waiting in the outbox, those delivered and those given up (Seq set on each).
func (db *DB) TaskWebhooks(taskID string) ([]model.WebhookDelivery, error) {
	type kv struct {
		seq uint64
		v   []byte
	}
	var raws []kv
	prefix := []byte(taskID)
	err := db.view(func(tx Tx) error {
		for _, name := range [][]byte{bucketOutbox, bucketOutboxDead} {
			// the outbox holds what waits, the dead letters what was given up: both small
			if err := tx.Bucket(name).ForEach(func(k, v []byte) error {
				if bytes.Contains(v, []byte(`"taskId":"`+taskID+`"`)) {
					raws = append(raws, kv{binary.BigEndian.Uint64(k), copyBytes(v)})
				}
				return nil
			}); err != nil {
				return err
			}
		}
		if done := tx.Bucket(bucketOutboxDone); done != nil {
			c := done.Cursor()
			for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix) && len(k) == len(prefix)+8; k, v = c.Next() {
				raws = append(raws, kv{binary.BigEndian.Uint64(k[len(prefix):]), copyBytes(v)})
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(raws, func(i, j int) bool { return raws[i].seq < raws[j].seq })
	out := make([]model.WebhookDelivery, 0, len(raws))
	for _, r := range raws {
		var d model.WebhookDelivery
		if err := json.Unmarshal(r.v, &d); err != nil {
			return nil, err
		}
		if d.TaskID != taskID {
			continue
		}
		d.Seq = r.seq
		out = append(out, d)
	}
	return out, nil
}
