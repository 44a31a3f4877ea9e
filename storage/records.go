package storage

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cutroom/cutroom/model"
)

// The content check of a backup (CheckFile, Restore): every record of every bucket is
// decoded as the store decodes it, and every index agrees with the records it points to
// and that point to it, so that a server opened on a restored file answers every read it
// serves instead of failing at start (a task listed active that cannot be read) or
// answering 500 (an index entry of a record that is not there). bbolt's own check sees
// only pages; a byte changed inside a record, a key or an index is found here.
//
// One rule per bucket, as data: which migration makes it, whether its values are nested
// buckets (one per owner: a workspace or a project), and what each record must be. A
// file's schema version says which buckets it must have; a bucket the version does not
// know is not cutroom's. The check reads every record once and looks up the others by key
// in the same read transaction, so its memory does not grow with the database.

// bucketRule is the check of one top-level bucket.
type bucketRule struct {
	name []byte
	// since is the migration that makes the bucket (a file of that schema version or later
	// has it); 0: made when first needed, so it may be missing.
	since int
	// owner, when set, says the bucket's values are nested buckets keyed by an owner id,
	// which must exist (ownerExists), each holding records.
	owner func(tx Tx, id []byte) bool
	// record checks one record (k, v) of the bucket, or of the owner's nested bucket.
	record func(tx Tx, owner, k, v []byte) error
	// from is the first schema version whose records are checked: the migration to it
	// rewrites older ones, dropping what it cannot read.
	from int
}

// bucketRules are the rules of every bucket of the current schema.
var bucketRules = []bucketRule{
	{name: bucketMeta, record: checkMeta},
	{name: bucketWorkspaces, since: 1, record: checkWorkspace},
	{name: bucketWorkspaceName, since: 1, record: checkWorkspaceName},
	{name: bucketKeys, since: 1, record: checkKey},
	{name: bucketKeyHash, since: 1, record: checkKeyHash},
	{name: bucketProjects, since: 1, record: checkProject},
	{name: bucketProjectState, since: 1, record: checkState(bucketProjects)},
	{name: bucketProjectIndex, since: 1, owner: workspaceExists, record: checkProjectIndex},
	{name: bucketIdempotency, since: 1, record: checkIdempotency, from: 5}, // migrateIdempotencyData
	{name: bucketExports, since: 2, record: checkTask},
	{name: bucketExportState, since: 2, record: checkState(bucketExports)},
	{name: bucketExportIndex, since: 2, owner: workspaceExists, record: checkTaskIndex},
	{name: bucketExportActive, since: 2, owner: workspaceExists, record: checkActive},
	{name: bucketExportClient, since: 2, record: checkClientIndex},
	{name: bucketExportQueue, since: 2, record: checkQueue},
	{name: bucketExportExpiry, since: 2, record: checkExpiry},
	{name: bucketCredits, since: 2, record: checkCredits},
	{name: bucketOutbox, since: 2, record: checkDelivery},
	{name: bucketOutboxDead, since: 2, record: checkDelivery},
	{name: bucketOutboxDone, record: checkDelivered},
	{name: bucketAssets, since: 3, record: checkAsset},
	{name: bucketProjectAssets, since: 3, owner: projectExists, record: checkBinding},
	{name: bucketProjectAsset, since: 3, owner: projectExists, record: checkBindingByAsset},
	{name: bucketReferences, since: 4, record: checkReferences},
	{name: bucketIllustrations, since: 6, owner: workspaceExists, record: checkIllustration},
	{name: bucketAssetIndex, since: 7, owner: workspaceExists, record: checkAssetIndex},
	{name: bucketTaskChanges, record: checkTaskChange},
	{name: bucketTaskChangesWaiting, record: checkWaitingTaskChange},
	{name: bucketTaskChangeStamps, record: checkTaskChangeStamp},
}

// unreadable is a record that does not decode as the store decodes it.
type unreadable struct{ err error }

func (u unreadable) Error() string { return u.err.Error() }

// decode reads v into dst as the store does, or says why it cannot be read.
func decode(v []byte, dst any) error {
	if err := json.Unmarshal(v, dst); err != nil {
		return unreadable{err}
	}
	return nil
}

// checkRecords checks every bucket and record of tx, a database of schema version
// version, against bucketRules. The first problem found is the error.
func checkRecords(tx Tx, version int) error {
	known := map[string]bool{}
	for _, r := range bucketRules {
		known[string(r.name)] = true
		switch has := tx.Bucket(r.name) != nil; {
		case r.since > 0 && r.since <= version && !has:
			return fmt.Errorf("bucket %q is missing (schema version %d has it)", r.name, version)
		case r.since > version && has:
			// (and so a record's check finds every bucket it looks up: none is newer)
			return fmt.Errorf("bucket %q is of schema version %d, the file's is %d", r.name, r.since, version)
		}
	}
	if err := tx.ForEach(func(name []byte, _ Bucket) error {
		if !known[string(name)] {
			return fmt.Errorf("bucket %s is not cutroom's", keyString(name))
		}
		return nil
	}); err != nil {
		return err
	}
	for _, r := range bucketRules {
		if b := tx.Bucket(r.name); b != nil {
			if err := r.check(tx, b, version); err != nil {
				return err
			}
		}
	}
	return nil
}

// check checks the records of the rule's bucket b.
func (r bucketRule) check(tx Tx, b Bucket, version int) error {
	if version < r.from {
		return nil
	}
	if r.owner == nil {
		return r.records(tx, keyString(r.name), nil, b)
	}
	return b.ForEach(func(owner, v []byte) error {
		where := keyString(r.name) + "/" + keyString(owner)
		if v != nil {
			return fmt.Errorf("record %s in bucket %s: a record where a bucket of its owner belongs", keyString(owner), keyString(r.name))
		}
		if !r.owner(tx, owner) {
			return fmt.Errorf("bucket %s: its owner %s does not exist", where, keyString(owner))
		}
		return r.records(tx, where, owner, b.Bucket(owner))
	})
}

// records checks the records of bucket b (named where in messages).
func (r bucketRule) records(tx Tx, where string, owner []byte, b Bucket) error {
	return b.ForEach(func(k, v []byte) error {
		if v == nil {
			return fmt.Errorf("record %s in bucket %s: a bucket where a record belongs", keyString(k), where)
		}
		err := r.record(tx, owner, k, v)
		var u unreadable
		switch {
		case err == nil:
			return nil
		case errors.As(err, &u):
			return fmt.Errorf("record %s in bucket %s cannot be read: %v", keyString(k), where, u.err)
		default:
			return fmt.Errorf("record %s in bucket %s: %v", keyString(k), where, err)
		}
	})
}

// keyString quotes a key that is text, and shows any other as hex.
func keyString(k []byte) string {
	if utf8.Valid(k) && !bytes.ContainsFunc(k, func(r rune) bool { return r < ' ' || r == 0x7f }) {
		return fmt.Sprintf("%q", k)
	}
	return "0x" + hex.EncodeToString(k)
}

func workspaceExists(tx Tx, id []byte) bool { return tx.Bucket(bucketWorkspaces).Get(id) != nil }

func projectExists(tx Tx, id []byte) bool { return tx.Bucket(bucketProjects).Get(id) != nil }

// recordOf decodes the record id of bucket into dst; false when it is missing or does not
// decode (its own check says which).
func recordOf(tx Tx, bucket, id []byte, dst any) bool {
	v := tx.Bucket(bucket).Get(id)
	return v != nil && json.Unmarshal(v, dst) == nil
}

func checkMeta(_ Tx, _, k, v []byte) error {
	switch {
	case bytes.Equal(k, keySchemaVersion) && len(v) != 8:
		return fmt.Errorf("the schema version has %d bytes, not 8", len(v))
	case bytes.Equal(k, keyFontGeneration) && len(v) != 8:
		return fmt.Errorf("the font generation has %d bytes, not 8", len(v))
	case bytes.HasPrefix(k, []byte("secret:")) && len(v) == 0:
		return errors.New("an empty secret")
	}
	return nil
}

// ownRecord checks what a record of a workspace holds: the id it is stored under, and a
// workspace that exists.
func ownRecord(tx Tx, k []byte, kind, id, workspaceID string) error {
	if id != string(k) {
		return fmt.Errorf("holds %s %q", kind, id)
	}
	if !workspaceExists(tx, []byte(workspaceID)) {
		return fmt.Errorf("its workspace %q does not exist", workspaceID)
	}
	return nil
}

func checkWorkspace(tx Tx, _, k, v []byte) error {
	var ws model.Workspace
	if err := decode(v, &ws); err != nil {
		return err
	}
	if ws.ID != string(k) {
		return fmt.Errorf("holds workspace %q", ws.ID)
	}
	if name := strings.TrimSpace(ws.Name); name == "" || name != ws.Name || len(name) > 100 {
		return fmt.Errorf("the name %q is not a workspace name", ws.Name)
	}
	if id := tx.Bucket(bucketWorkspaceName).Get([]byte(strings.ToLower(ws.Name))); string(id) != ws.ID {
		return fmt.Errorf("the name %q is not in bucket %q", ws.Name, bucketWorkspaceName)
	}
	return nil
}

func checkWorkspaceName(tx Tx, _, k, v []byte) error {
	var ws model.Workspace
	if !recordOf(tx, bucketWorkspaces, v, &ws) || strings.ToLower(ws.Name) != string(k) {
		return fmt.Errorf("names workspace %s, which has no such name", keyString(v))
	}
	return nil
}

func checkKey(tx Tx, _, k, v []byte) error {
	var key model.APIKey
	if err := decode(v, &key); err != nil {
		return err
	}
	if err := ownRecord(tx, k, "API key", key.ID, key.WorkspaceID); err != nil {
		return err
	}
	if key.RevokedAt == nil && string(tx.Bucket(bucketKeyHash).Get([]byte(key.Hash))) != key.ID {
		return fmt.Errorf("a live key whose hash is not in bucket %q", bucketKeyHash)
	}
	return nil
}

func checkKeyHash(tx Tx, _, k, v []byte) error {
	var key model.APIKey
	if !recordOf(tx, bucketKeys, v, &key) || key.Hash != string(k) || key.RevokedAt != nil {
		return fmt.Errorf("names API key %s, which is not a live key of that hash", keyString(v))
	}
	return nil
}

func checkProject(tx Tx, _, k, v []byte) error {
	var p model.Project
	if err := decode(v, &p); err != nil {
		return err
	}
	if err := ownRecord(tx, k, "project", p.ID, p.WorkspaceID); err != nil {
		return err
	}
	switch {
	case tx.Bucket(bucketProjectState).Get(k) == nil:
		return fmt.Errorf("it has no state in bucket %q", bucketProjectState)
	case !indexed(tx, bucketProjectIndex, p.WorkspaceID, orderKey(p.CreatedAt, p.ID), p.ID):
		return fmt.Errorf("it is not in its workspace's list (bucket %q)", bucketProjectIndex)
	}
	return nil
}

// indexed reports whether the nested bucket owner of index maps k to id.
func indexed(tx Tx, index []byte, owner string, k []byte, id string) bool {
	v := nested(tx, index, owner).Get(k)
	return v != nil && string(v) == id
}

// nested returns the nested bucket owner of index, or an empty one.
func nested(tx Tx, index []byte, owner string) nestedBucket {
	return nestedBucket{tx.Bucket(index).Bucket([]byte(owner))}
}

// nestedBucket is a bucket that may be missing: a missing one has no keys.
type nestedBucket struct{ b Bucket }

func (n nestedBucket) Get(k []byte) []byte {
	if n.b == nil {
		return nil
	}
	return n.b.Get(k)
}

// checkState returns the check of a state bucket whose records belong to bucket owners: a
// JSON object, as it was sent, of a record that exists.
func checkState(owners []byte) func(Tx, []byte, []byte, []byte) error {
	return func(tx Tx, _, k, v []byte) error {
		var obj map[string]json.RawMessage
		if err := decode(v, &obj); err != nil {
			return err
		}
		if tx.Bucket(owners).Get(k) == nil {
			return fmt.Errorf("the state of no record of bucket %q", owners)
		}
		return nil
	}
}

func checkProjectIndex(tx Tx, owner, k, v []byte) error {
	var p model.Project
	if !recordOf(tx, bucketProjects, v, &p) || p.WorkspaceID != string(owner) || !bytes.Equal(orderKey(p.CreatedAt, p.ID), k) {
		return fmt.Errorf("lists project %s, which is not that workspace's project created then", keyString(v))
	}
	return nil
}

func checkIdempotency(_ Tx, _, k, v []byte) error {
	var r IdempotencyRecord
	if err := decode(v, &r); err != nil {
		return err
	}
	if r.Scope != string(k) {
		return fmt.Errorf("holds scope %q", r.Scope)
	}
	return nil
}

// taskStatuses are the statuses a task can have.
var taskStatuses = map[string]bool{model.StatusPending: true, model.StatusProcessing: true, model.StatusPaused: true,
	model.StatusCompleted: true, model.StatusFailed: true, model.StatusCanceled: true}

func checkTask(tx Tx, _, k, v []byte) error {
	var t model.ExportTask
	if err := decode(v, &t); err != nil {
		return err
	}
	if err := ownRecord(tx, k, "task", t.ID, t.WorkspaceID); err != nil {
		return err
	}
	ok := orderKey(t.CreatedAt, t.ID)
	switch {
	case !taskStatuses[t.Status]:
		return fmt.Errorf("status %q is none of a task's", t.Status)
	case tx.Bucket(bucketExportState).Get(k) == nil:
		return fmt.Errorf("it has no state in bucket %q", bucketExportState)
	case !indexed(tx, bucketExportIndex, t.WorkspaceID, ok, t.ID):
		return fmt.Errorf("it is not in its workspace's list (bucket %q)", bucketExportIndex)
	case t.Active() != (nested(tx, bucketExportActive, t.WorkspaceID).Get(k) != nil):
		return fmt.Errorf("a %s task is %s bucket %q", t.Status, inOrNot(!t.Active()), bucketExportActive)
	case (t.Status == model.StatusPending) != (string(tx.Bucket(bucketExportQueue).Get(ok)) == t.ID):
		return fmt.Errorf("a %s task is %s the queue (bucket %q)", t.Status, inOrNot(t.Status != model.StatusPending), bucketExportQueue)
	case expires(&t) && string(tx.Bucket(bucketExportExpiry).Get(expiryKey(*t.OutputExpiresAt, t.ID))) != t.ID:
		return fmt.Errorf("its output's expiry is not in bucket %q", bucketExportExpiry)
	case t.ClientTaskID != nil && tx.Bucket(bucketExportClient).Get(clientKey(t.WorkspaceID, *t.ClientTaskID)) == nil:
		return fmt.Errorf("its clientTaskId is not in bucket %q", bucketExportClient)
	}
	return nil
}

func inOrNot(in bool) string {
	if in {
		return "in"
	}
	return "not in"
}

// expires reports whether a task's output expiry is indexed (reindex).
func expires(t *model.ExportTask) bool {
	return t.Status == model.StatusCompleted && t.OutputExpiresAt != nil && !t.OutputPurged
}

func checkTaskIndex(tx Tx, owner, k, v []byte) error {
	var t model.ExportTask
	if !recordOf(tx, bucketExports, v, &t) || t.WorkspaceID != string(owner) || !bytes.Equal(orderKey(t.CreatedAt, t.ID), k) {
		return fmt.Errorf("lists task %s, which is not that workspace's task created then", keyString(v))
	}
	return nil
}

func checkActive(tx Tx, owner, k, v []byte) error {
	var t model.ExportTask
	if len(v) != 0 || !recordOf(tx, bucketExports, k, &t) || t.WorkspaceID != string(owner) || !t.Active() {
		return errors.New("not an active task of that workspace")
	}
	return nil
}

func checkClientIndex(tx Tx, _, k, v []byte) error {
	var t model.ExportTask
	ws, client, _ := bytes.Cut(k, []byte{0})
	if !recordOf(tx, bucketExports, v, &t) || t.WorkspaceID != string(ws) || t.ClientTaskID == nil || *t.ClientTaskID != string(client) {
		return fmt.Errorf("names task %s, which is not that workspace's task of that clientTaskId", keyString(v))
	}
	return nil
}

func checkQueue(tx Tx, _, k, v []byte) error {
	var t model.ExportTask
	if !recordOf(tx, bucketExports, v, &t) || t.Status != model.StatusPending || !bytes.Equal(orderKey(t.CreatedAt, t.ID), k) {
		return fmt.Errorf("queues task %s, which is not a pending task created then", keyString(v))
	}
	return nil
}

func checkExpiry(tx Tx, _, k, v []byte) error {
	var t model.ExportTask
	if !recordOf(tx, bucketExports, v, &t) || !expires(&t) || !bytes.Equal(expiryKey(*t.OutputExpiresAt, t.ID), k) {
		return fmt.Errorf("names task %s, whose output does not expire then", keyString(v))
	}
	return nil
}

func checkCredits(tx Tx, _, k, v []byte) error {
	switch {
	case len(v) != 8:
		return fmt.Errorf("a balance of %d bytes, not 8", len(v))
	case int64(binary.BigEndian.Uint64(v)) < 0:
		return fmt.Errorf("a negative balance (%d)", int64(binary.BigEndian.Uint64(v)))
	case !workspaceExists(tx, k):
		return errors.New("the balance of a workspace that does not exist")
	}
	return nil
}

func checkDelivery(_ Tx, _, k, v []byte) error {
	var d model.WebhookDelivery
	if err := decode(v, &d); err != nil {
		return err
	}
	if len(k) != 8 {
		return fmt.Errorf("a key of %d bytes, not a sequence number's 8", len(k))
	}
	return nil
}

func checkDelivered(_ Tx, _, k, v []byte) error {
	var d model.WebhookDelivery
	if err := decode(v, &d); err != nil {
		return err
	}
	if len(k) <= 8 || d.TaskID != string(k[:len(k)-8]) {
		return fmt.Errorf("holds a delivery of task %q", d.TaskID)
	}
	return nil
}

func checkAsset(tx Tx, _, k, v []byte) error {
	var a model.Asset
	if err := decode(v, &a); err != nil {
		return err
	}
	if err := ownRecord(tx, k, "asset", a.ID, a.WorkspaceID); err != nil {
		return err
	}
	// an asset of a file older than migration 7 has no index to be in
	if tx.Bucket(bucketAssetIndex) != nil && !indexed(tx, bucketAssetIndex, a.WorkspaceID, orderKey(a.CreatedAt, a.ID), a.ID) {
		return fmt.Errorf("it is not in its workspace's list (bucket %q)", bucketAssetIndex)
	}
	// the server's start sweeps the files area by this key: a wrong one deletes the file
	dir := "assets/" + a.WorkspaceID + "/" + a.ID + "/"
	if name, ok := strings.CutPrefix(a.FileKey, dir); !ok || name == "" || name == "." || name == ".." || strings.ContainsAny(name, `/\`) {
		return fmt.Errorf("its file key %q is not %s<name>", a.FileKey, dir)
	}
	return nil
}

func checkAssetIndex(tx Tx, owner, k, v []byte) error {
	var a model.Asset
	if !recordOf(tx, bucketAssets, v, &a) || a.WorkspaceID != string(owner) || !bytes.Equal(orderKey(a.CreatedAt, a.ID), k) {
		return fmt.Errorf("lists asset %s, which is not that workspace's asset created then", keyString(v))
	}
	return nil
}

func checkBinding(tx Tx, owner, k, v []byte) error {
	if tx.Bucket(bucketAssets).Get(v) == nil || len(k) < 9 || !bytes.Equal(k[8:], orderKey(time.Time{}, string(v))[8:]) ||
		!bytes.Equal(nested(tx, bucketProjectAsset, string(owner)).Get(v), k) {
		return fmt.Errorf("binds asset %s, which is not bound to that project then", keyString(v))
	}
	return nil
}

func checkBindingByAsset(tx Tx, owner, k, v []byte) error {
	if string(nested(tx, bucketProjectAssets, string(owner)).Get(v)) != string(k) {
		return fmt.Errorf("binds asset %s at a place the project's asset list does not have", keyString(k))
	}
	return nil
}

func checkReferences(tx Tx, _, k, v []byte) error {
	if len(v) != 8 {
		return fmt.Errorf("a version of %d bytes, not 8", len(v))
	}
	if !workspaceExists(tx, k) {
		return errors.New("the version of a workspace that does not exist")
	}
	return nil
}

func checkIllustration(tx Tx, _, _, v []byte) error {
	var il Illustration
	if err := decode(v, &il); err != nil {
		return err
	}
	if tx.Bucket(bucketAssets).Get([]byte(il.AssetID)) == nil {
		return fmt.Errorf("its asset %q does not exist", il.AssetID)
	}
	return nil
}
