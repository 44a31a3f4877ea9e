package storage

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"time"

	"github.com/cutroom/cutroom/model"
)

// ErrWebhookClaimLost is returned by WebhookSucceeded and WebhookFailed when the entry is no
// longer claimed by the node that made the attempt (its claim expired and another node
// claimed it, or the entry left the outbox): nothing is written.
var ErrWebhookClaimLost = errors.New("the webhook entry is no longer claimed by this node")

// ClaimWebhook claims the outbox entry seq for node until now+ttl, in one write
// transaction, when it is due at now and no other node's claim holds it, and returns the
// entry (Seq set) with its claim; nil when the entry is gone, not due or claimed by another
// node until after now. When the claim replaces an expired one, abandoned is that claim's
// node, and the entry counts the attempt it was for: Attempts, History and LastError say
// that attempt ended with no outcome recorded.
func (db *DB) ClaimWebhook(seq uint64, node string, now time.Time, ttl time.Duration) (claimed *model.WebhookDelivery, abandoned string, err error) {
	k := binary.BigEndian.AppendUint64(nil, seq)
	err = db.update(func(tx Tx) error {
		claimed, abandoned = nil, ""
		ob := tx.Bucket(bucketOutbox)
		raw := ob.Get(k)
		if raw == nil {
			return nil
		}
		var d model.WebhookDelivery
		if err := json.Unmarshal(raw, &d); err != nil {
			return err
		}
		live := d.ClaimNode != "" && d.ClaimExpiresAt != nil && d.ClaimExpiresAt.After(now)
		if d.NextAttemptAt.After(now) || (live && d.ClaimNode != node) {
			return nil
		}
		if d.ClaimNode != "" {
			msg := "no outcome recorded: node " + d.ClaimNode + " stopped during the attempt"
			abandoned = d.ClaimNode
			d.Attempts++
			d.LastError = msg
			d.History = append(d.History, model.WebhookAttempt{At: now.UTC(), Error: msg})
		}
		exp := now.Add(ttl).UTC()
		d.ClaimNode, d.ClaimExpiresAt = node, &exp
		val, err := json.Marshal(d)
		if err != nil {
			return err
		}
		d.Seq = seq
		claimed = &d
		return ob.Put(k, val)
	})
	if err != nil {
		return nil, "", err
	}
	return claimed, abandoned, nil
}

// ReleaseWebhook drops node's claim on the outbox entry seq, counting no attempt (an attempt
// a shutdown aborted): any node may send it at once.
func (db *DB) ReleaseWebhook(seq uint64, node string) error {
	return db.update(func(tx Tx) error {
		return releaseClaims(tx, func(d *model.WebhookDelivery) bool { return d.ClaimNode == node },
			binary.BigEndian.AppendUint64(nil, seq))
	})
}

// ReleaseWebhookClaims drops every claim in the outbox, counting no attempt: a process that
// holds the only handle on the database (bbolt) calls it at start, every claim there being
// of an earlier run of its own whose attempts did not count (as before claims existed).
func (db *DB) ReleaseWebhookClaims() error {
	return db.update(func(tx Tx) error {
		return releaseClaims(tx, func(*model.WebhookDelivery) bool { return true }, nil)
	})
}

// releaseClaims drops the claims of the outbox entries drop picks: the entry at key only, or
// every entry when key is nil.
func releaseClaims(tx Tx, drop func(d *model.WebhookDelivery) bool, key []byte) error {
	ob := tx.Bucket(bucketOutbox)
	type kv struct{ k, v []byte }
	var puts []kv
	visit := func(k, v []byte) error {
		var d model.WebhookDelivery
		if err := json.Unmarshal(v, &d); err != nil {
			return err
		}
		if d.ClaimNode == "" || !drop(&d) {
			return nil
		}
		d.ClaimNode, d.ClaimExpiresAt = "", nil
		val, err := json.Marshal(d)
		if err != nil {
			return err
		}
		puts = append(puts, kv{copyBytes(k), val})
		return nil
	}
	if key != nil {
		if v := ob.Get(key); v != nil {
			if err := visit(key, v); err != nil {
				return err
			}
		}
	} else if err := ob.ForEach(visit); err != nil {
		return err
	}
	for _, p := range puts {
		if err := ob.Put(p.k, p.v); err != nil {
			return err
		}
	}
	return nil
}

// claimHeld reports whether the outbox entry raw (nil: gone) is claimed by node, and makes
// d's record claim-free; an attempt made without a claim (node "") writes as before claims
// existed.
func claimHeld(raw []byte, d *model.WebhookDelivery) (bool, error) {
	node := d.ClaimNode
	d.ClaimNode, d.ClaimExpiresAt = "", nil
	if node == "" {
		return true, nil
	}
	if raw == nil {
		return false, nil
	}
	var cur model.WebhookDelivery
	if err := json.Unmarshal(raw, &cur); err != nil {
		return false, err
	}
	return cur.ClaimNode == node, nil
}
