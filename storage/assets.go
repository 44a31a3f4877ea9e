package storage

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"github.com/cutroom/cutroom/model"
	"time"
)

// Buckets of migration 3 (assets).
var (
	bucketAssets        = []byte("assets")         // asset id -> Asset
	bucketProjectAssets = []byte("project_assets") // project id -> nested bucket: order key -> asset id
	bucketProjectAsset  = []byte("project_asset")  // project id -> nested bucket: asset id -> order key
)

// Bucket of migration 4: workspace id -> reference version (uint64, see ReferenceVersion).
var bucketReferences = []byte("references")

// Bucket of migration 7: workspace id -> nested bucket: order key (created, asset id) ->
// asset id, the workspace's uploads newest last (GET /v1/assets). Soft-deleted assets stay
// listed here and are skipped when read, as the project lists skip them.
var bucketAssetIndex = []byte("asset_index")

// migrateAssetIndex is migration 7: the workspace asset index, filled from the records an
// older database holds (deleted ones too, as CreateAsset would have indexed them).
func migrateAssetIndex(tx Tx) error {
	if _, err := tx.CreateBucketIfNotExists(bucketAssetIndex); err != nil {
		return err
	}
	return tx.Bucket(bucketAssets).ForEach(func(k, v []byte) error {
		var a model.Asset
		if err := json.Unmarshal(v, &a); err != nil {
			return fmt.Errorf("asset %s: %w", keyString(k), err)
		}
		return indexAsset(tx, a)
	})
}

// indexAsset puts a new asset in its workspace's asset index inside tx.
func indexAsset(tx Tx, a model.Asset) error {
	idx, err := tx.Bucket(bucketAssetIndex).CreateBucketIfNotExists([]byte(a.WorkspaceID))
	if err != nil {
		return err
	}
	return idx.Put(orderKey(a.CreatedAt, a.ID), []byte(a.ID))
}

// migrateAssets is migration 3: the asset records and project bindings.
func migrateAssets(tx Tx) error {
	for _, b := range [][]byte{bucketAssets, bucketProjectAssets, bucketProjectAsset} {
		if _, err := tx.CreateBucketIfNotExists(b); err != nil {
			return err
		}
	}
	return nil
}

func decodeAsset(raw []byte, workspaceID, id string, includeDeleted bool) (model.Asset, error) {
	if raw == nil {
		return model.Asset{}, notFound(ErrAssetNotFound, id)
	}
	var a model.Asset
	if err := json.Unmarshal(raw, &a); err != nil {
		return model.Asset{}, err
	}
	if (workspaceID != "" && a.WorkspaceID != workspaceID) || (!includeDeleted && a.DeletedAt != nil) {
		return model.Asset{}, notFound(ErrAssetNotFound, id)
	}
	return a, nil
}

// liveAsset reports whether raw is a stored asset of the workspace that is not deleted.
func liveAsset(raw []byte, workspaceID string) bool {
	if raw == nil {
		return false
	}
	var a struct {
		WorkspaceID string          `json:"workspaceId"`
		DeletedAt   json.RawMessage `json:"deletedAt"`
	}
	return json.Unmarshal(raw, &a) == nil && a.WorkspaceID == workspaceID && (len(a.DeletedAt) == 0 || string(a.DeletedAt) == "null")
}

// projectOf returns the workspace of a stored project inside tx, or a not-found error.
func projectOf(tx Tx, workspaceID, projectID string) (model.Project, error) {
	return decodeProject(tx.Bucket(bucketProjects).Get([]byte(projectID)), workspaceID, projectID)
}

// bind records the binding of assetID to projectID at time at, unless it exists already.
func bind(tx Tx, projectID, assetID string, at time.Time) error {
	byAsset, err := tx.Bucket(bucketProjectAsset).CreateBucketIfNotExists([]byte(projectID))
	if err != nil {
		return err
	}
	if byAsset.Get([]byte(assetID)) != nil {
		return nil
	}
	ordered, err := tx.Bucket(bucketProjectAssets).CreateBucketIfNotExists([]byte(projectID))
	if err != nil {
		return err
	}
	k := orderKey(at, assetID)
	if err := ordered.Put(k, []byte(assetID)); err != nil {
		return err
	}
	return byAsset.Put([]byte(assetID), k)
}

// CreateAsset stores a new asset record and, when projectID is not empty, its binding to
// that project of the same workspace, in one transaction. An unknown project stores
// nothing and returns PROJECT_NOT_FOUND.
func (db *DB) CreateAsset(a model.Asset, projectID string) error {
	val, err := json.Marshal(a)
	if err != nil {
		return err
	}
	return db.update(func(tx Tx) error {
		if projectID != "" {
			if _, err := projectOf(tx, a.WorkspaceID, projectID); err != nil {
				return err
			}
			if err := bind(tx, projectID, a.ID, a.CreatedAt); err != nil {
				return err
			}
		}
		if err := indexAsset(tx, a); err != nil {
			return err
		}
		if err := bumpFontGeneration(tx, a.Type); err != nil {
			return err
		}
		return tx.Bucket(bucketAssets).Put([]byte(a.ID), val)
	})
}

// Asset returns a live (not deleted) asset of a workspace.
func (db *DB) Asset(workspaceID, id string) (model.Asset, error) {
	raw, err := db.assetRaw(id)
	if err != nil {
		return model.Asset{}, err
	}
	return decodeAsset(raw, workspaceID, id, false)
}

// AssetRecord returns an asset record whatever its workspace, deleted ones included.
func (db *DB) AssetRecord(id string) (model.Asset, error) {
	raw, err := db.assetRaw(id)
	if err != nil {
		return model.Asset{}, err
	}
	return decodeAsset(raw, "", id, true)
}

// AssetRecords returns the records of those of ids that exist, deleted ones included, by
// id: read in one transaction and one query however many there are (the blob sweep checks
// a page of objects with it).
func (db *DB) AssetRecords(ids []string) (map[string]model.Asset, error) {
	return readRecords(db, bucketAssets, ids, func(raw []byte, id string) (model.Asset, error) {
		return decodeAsset(raw, "", id, true)
	})
}

func (db *DB) assetRaw(id string) ([]byte, error) {
	var raw []byte
	err := db.view(func(tx Tx) error {
		raw = copyBytes(tx.Bucket(bucketAssets).Get([]byte(id)))
		return nil
	})
	return raw, err
}

// AssetIDs returns the ids of every asset record, deleted ones included (for the startup
// sweep of files without a record).
func (db *DB) AssetIDs() (map[string]bool, error) {
	ids := map[string]bool{}
	err := db.view(func(tx Tx) error {
		return tx.Bucket(bucketAssets).ForEach(func(k, _ []byte) error {
			ids[string(k)] = true
			return nil
		})
	})
	return ids, err
}

// ReferenceVersion returns the workspace's reference version: a counter that every write of
// an editor state in the workspace advances (a project created or synced, an export task
// created). A caller that checks the states for references to an asset, outside of any
// transaction, deletes it with SoftDeleteAssetIfUnchanged at the version it read before the
// check: no state written meanwhile can slip past the check.
func (db *DB) ReferenceVersion(workspaceID string) (uint64, error) {
	var v uint64
	err := db.view(func(tx Tx) error {
		v = referenceVersion(tx, workspaceID)
		return nil
	})
	return v, err
}

// SoftDeleteAssetIfUnchanged marks a live asset of a workspace deleted if the workspace's
// reference version is still version, and otherwise fails with ErrReferencesChanged (check
// again, then retry). The record and its file stay; the asset is no longer found, listed,
// bound or served.
func (db *DB) SoftDeleteAssetIfUnchanged(workspaceID, id string, version uint64) (model.Asset, error) {
	raw, err := db.assetRaw(id)
	if err != nil {
		return model.Asset{}, err
	}
	a, err := decodeAsset(raw, workspaceID, id, false)
	if err != nil {
		return model.Asset{}, err
	}
	now := db.now().UTC()
	a.DeletedAt = &now
	val, err := json.Marshal(a)
	if err != nil {
		return model.Asset{}, err
	}
	err = db.update(func(tx Tx) error {
		b := tx.Bucket(bucketAssets)
		if !liveAsset(b.Get([]byte(id)), workspaceID) {
			return notFound(ErrAssetNotFound, id)
		}
		if v := referenceVersion(tx, workspaceID); v != version {
			return fmt.Errorf("%w: workspace %s wrote editor states since version %d (now %d)", ErrReferencesChanged, workspaceID, version, v)
		}
		if err := bumpFontGeneration(tx, a.Type); err != nil {
			return err
		}
		return b.Put([]byte(id), val)
	})
	return a, err
}

// referenceVersion reads a workspace's reference version inside tx (0 before any write).
func referenceVersion(tx Tx, workspaceID string) uint64 {
	if v := tx.Bucket(bucketReferences).Get([]byte(workspaceID)); len(v) == 8 {
		return binary.BigEndian.Uint64(v)
	}
	return 0
}

// bumpReferences advances a workspace's reference version inside the tx that writes one of
// its editor states.
func bumpReferences(tx Tx, workspaceID string) error {
	v := referenceVersion(tx, workspaceID) + 1
	return tx.Bucket(bucketReferences).Put([]byte(workspaceID), binary.BigEndian.AppendUint64(nil, v))
}

// BindAsset binds a live asset to a project of the same workspace. Binding an asset that
// is already bound changes nothing (the binding keeps its place in the list).
func (db *DB) BindAsset(workspaceID, projectID, assetID string) error {
	now := db.now().UTC()
	return db.update(func(tx Tx) error {
		if _, err := projectOf(tx, workspaceID, projectID); err != nil {
			return err
		}
		if !liveAsset(tx.Bucket(bucketAssets).Get([]byte(assetID)), workspaceID) {
			return notFound(ErrAssetNotFound, assetID)
		}
		return bind(tx, projectID, assetID, now)
	})
}

// UnbindAsset removes the binding of an asset to a project; the asset itself stays. An
// asset that is not bound gives ErrAssetNotBound.
func (db *DB) UnbindAsset(workspaceID, projectID, assetID string) error {
	return db.update(func(tx Tx) error {
		if _, err := projectOf(tx, workspaceID, projectID); err != nil {
			return err
		}
		byAsset := tx.Bucket(bucketProjectAsset).Bucket([]byte(projectID))
		var k []byte
		if byAsset != nil {
			k = byAsset.Get([]byte(assetID))
		}
		if k == nil {
			return fmt.Errorf("%w: asset %s, project %s", ErrAssetNotBound, assetID, projectID)
		}
		k = copyBytes(k)
		if err := byAsset.Delete([]byte(assetID)); err != nil {
			return err
		}
		if ordered := tx.Bucket(bucketProjectAssets).Bucket([]byte(projectID)); ordered != nil {
			return ordered.Delete(k)
		}
		return nil
	})
}

// ListProjectAssets returns a page of the live assets bound to a project, most recently
// bound first, and the cursor of the next page ("" on the last page).
func (db *DB) ListProjectAssets(workspaceID, projectID string, pageSize int, cursor string) ([]model.Asset, string, error) {
	return db.assetPage(workspaceID, pageSize, cursor, func(tx Tx) (Bucket, error) {
		if _, err := projectOf(tx, workspaceID, projectID); err != nil {
			return nil, err
		}
		return tx.Bucket(bucketProjectAssets).Bucket([]byte(projectID)), nil
	})
}

// assetPage returns a page of the live assets of a workspace that the index bucket index
// picks (inside the read transaction) lists.
func (db *DB) assetPage(workspaceID string, pageSize int, cursor string, index func(tx Tx) (Bucket, error)) ([]model.Asset, string, error) {
	return page(db, cursor, pageSize, func(tx Tx) (pageSource, error) {
		idx, err := index(tx)
		if err != nil {
			return pageSource{}, err
		}
		ab := tx.Bucket(bucketAssets)
		return pageSource{index: idx, records: ab, keep: func(v []byte) bool { return liveAsset(ab.Get(v), workspaceID) }}, nil
	}, func(raw []byte, id string) (model.Asset, error) { return decodeAsset(raw, workspaceID, id, false) })
}

// ListAssets returns a page of a workspace's live assets, newest upload first, and the
// cursor of the next page ("" on the last page): uploads bound to a project and to none
// alike. Another workspace's assets are never in its index.
func (db *DB) ListAssets(workspaceID string, pageSize int, cursor string) ([]model.Asset, string, error) {
	return db.assetPage(workspaceID, pageSize, cursor, func(tx Tx) (Bucket, error) {
		return tx.Bucket(bucketAssetIndex).Bucket([]byte(workspaceID)), nil
	})
}

// EachProjectState calls fn with every project state of a workspace. Each state is read in
// its own short transaction and fn runs outside of any transaction, so fn may parse at
// leisure. A project deleted meanwhile is skipped. fn's error stops the walk.
func (db *DB) EachProjectState(workspaceID string, fn func(projectID string, state []byte) error) error {
	var ids []string
	if err := db.view(func(tx Tx) error {
		idx := tx.Bucket(bucketProjectIndex).Bucket([]byte(workspaceID))
		if idx == nil {
			return nil
		}
		return idx.ForEach(func(_, v []byte) error {
			ids = append(ids, string(v))
			return nil
		})
	}); err != nil {
		return err
	}
	for _, id := range ids {
		state, err := db.read(bucketProjectState, []byte(id))
		if err != nil {
			return err
		}
		if state == nil {
			continue
		}
		if err := fn(id, state); err != nil {
			return err
		}
	}
	return nil
}

// deleteBindings removes every asset binding of a project inside tx.
func deleteBindings(tx Tx, projectID string) error {
	for _, name := range [][]byte{bucketProjectAssets, bucketProjectAsset} {
		b := tx.Bucket(name)
		if b == nil || b.Bucket([]byte(projectID)) == nil {
			continue
		}
		if err := b.DeleteBucket([]byte(projectID)); err != nil {
			return err
		}
	}
	return nil
}

// secretKey is the meta bucket's key of secret name.
func secretKey(name string) []byte { return []byte("secret:" + name) }

// Secret returns the named server secret of size bytes, generating and storing it on first
// use, so that what it signs stays valid across restarts.
func (db *DB) Secret(name string, size int) ([]byte, error) {
	key := secretKey(name)
	out, err := db.read(bucketMeta, key)
	if err != nil {
		return nil, err
	}
	if len(out) > 0 {
		return out, nil
	}
	fresh := make([]byte, size)
	if _, err := rand.Read(fresh); err != nil {
		return nil, err
	}
	err = db.update(func(tx Tx) error {
		b := tx.Bucket(bucketMeta)
		if cur := b.Get(key); len(cur) > 0 { // another caller won the race
			out = copyBytes(cur)
			return nil
		}
		out = fresh
		return b.Put(key, fresh)
	})
	return out, err
}
