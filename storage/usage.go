package storage

import (
	"encoding/json"
)

// KindUsage is the count and bytes of stored asset files of one kind.
type KindUsage struct {
	Files int64
	Bytes int64
}

// AssetUsage returns the asset records by kind (model.Asset.Type): how many and their
// bytes, soft-deleted ones included (their files stay on disk). It reads every record in
// one transaction (for the metrics scrape).
func (db *DB) AssetUsage() (map[string]KindUsage, error) {
	out := map[string]KindUsage{}
	err := db.view(func(tx Tx) error {
		return tx.Bucket(bucketAssets).ForEach(func(_, v []byte) error {
			var a struct {
				Type string `json:"type"`
				Size int64  `json:"size"`
			}
			if json.Unmarshal(v, &a) != nil {
				return nil
			}
			u := out[a.Type]
			u.Files++
			u.Bytes += a.Size
			out[a.Type] = u
			return nil
		})
	})
	return out, err
}
