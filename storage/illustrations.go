package storage

import (
	"encoding/json"
	"time"
)

// Bucket of migration 6: workspace id -> nested bucket: illustration name -> illustration
// record (JSON of Illustration without the name).
var bucketIllustrations = []byte("illustrations")

// migrateIllustrations is migration 6: the workspaces' own illustrations.
func migrateIllustrations(tx Tx) error {
	_, err := tx.CreateBucketIfNotExists(bucketIllustrations)
	return err
}

// Illustration is a workspace's own illustration: a name bound to an uploaded SVG asset.
// The name's rules are the caller's (package illustrations); storage keeps what it is given.
type Illustration struct {
	Name      string    `json:"-"`
	AssetID   string    `json:"assetId"`
	UpdatedAt time.Time `json:"updatedAt"`
}

// PutIllustration binds name to assetID in a workspace's illustrations, replacing an earlier
// binding of the name; it returns the asset the name was bound to before ("" when none). The
// asset must be a live asset of the workspace (ErrAssetNotFound otherwise).
func (db *DB) PutIllustration(workspaceID, name, assetID string) (previous string, err error) {
	val, err := json.Marshal(Illustration{AssetID: assetID, UpdatedAt: db.now().UTC()})
	if err != nil {
		return "", err
	}
	err = db.update(func(tx Tx) error {
		previous = "" // the transaction may run again (DB.update)
		if !liveAsset(tx.Bucket(bucketAssets).Get([]byte(assetID)), workspaceID) {
			return notFound(ErrAssetNotFound, assetID)
		}
		ws, err := tx.Bucket(bucketIllustrations).CreateBucketIfNotExists([]byte(workspaceID))
		if err != nil {
			return err
		}
		if old := ws.Get([]byte(name)); old != nil {
			var il Illustration
			if json.Unmarshal(old, &il) == nil {
				previous = il.AssetID
			}
		}
		return ws.Put([]byte(name), val)
	})
	return previous, err
}

// Illustrations returns a workspace's illustrations sorted by name. A name whose asset has
// been deleted since it was bound is not listed: deleting the asset unregisters the name.
func (db *DB) Illustrations(workspaceID string) ([]Illustration, error) {
	var out []Illustration
	err := db.view(func(tx Tx) error {
		ws := tx.Bucket(bucketIllustrations).Bucket([]byte(workspaceID))
		if ws == nil {
			return nil
		}
		assets := tx.Bucket(bucketAssets)
		return ws.ForEach(func(k, v []byte) error {
			var il Illustration
			if err := json.Unmarshal(v, &il); err != nil {
				return err
			}
			if !liveAsset(assets.Get([]byte(il.AssetID)), workspaceID) {
				return nil
			}
			il.Name = string(k)
			out = append(out, il)
			return nil
		})
	})
	return out, err
}
