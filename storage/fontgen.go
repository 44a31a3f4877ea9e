package storage

import (
	"encoding/binary"
	"encoding/json"
	"fmt"

	"github.com/cutroom/cutroom/model"
)

// keyFontGeneration is the meta key of the font generation (FontGeneration): absent (0)
// until the first font asset is created or deleted, so no migration adds it.
var keyFontGeneration = []byte("font_generation")

// assetTypeFont is the type of a font asset record (assets.TypeFont; storage does not
// import assets).
const assetTypeFont = "font"

// FontGeneration returns a number that changes whenever a font asset is created or
// soft-deleted, in the transaction that does it, by any process sharing the database: a
// node compares it with the generation whose fonts its font library holds, with one read
// of one key, to tell whether it must read the asset records again (app's font sync).
func (db *DB) FontGeneration() (uint64, error) {
	v, err := db.read(bucketMeta, keyFontGeneration)
	if err != nil || len(v) != 8 {
		return 0, err
	}
	return binary.BigEndian.Uint64(v), nil
}

// bumpFontGeneration advances the font generation inside tx when a is a font.
func bumpFontGeneration(tx Tx, assetType string) error {
	if assetType != assetTypeFont {
		return nil
	}
	b := tx.Bucket(bucketMeta)
	var v uint64
	if cur := b.Get(keyFontGeneration); len(cur) == 8 {
		v = binary.BigEndian.Uint64(cur)
	}
	return b.Put(keyFontGeneration, binary.BigEndian.AppendUint64(nil, v+1))
}

// FontAssets returns the live (not deleted) font asset records of every workspace, read in
// one transaction (what a node loads into its font library, at start and when the font
// generation changed). Other records are skipped after decoding their type alone.
func (db *DB) FontAssets() ([]model.Asset, error) {
	var out []model.Asset
	err := db.view(func(tx Tx) error {
		return tx.Bucket(bucketAssets).ForEach(func(k, v []byte) error {
			var head struct {
				Type      string          `json:"type"`
				DeletedAt json.RawMessage `json:"deletedAt"`
			}
			if err := json.Unmarshal(v, &head); err != nil {
				return fmt.Errorf("asset %s: %w", keyString(k), err)
			}
			if head.Type != assetTypeFont || (len(head.DeletedAt) > 0 && string(head.DeletedAt) != "null") {
				return nil
			}
			var a model.Asset
			if err := json.Unmarshal(v, &a); err != nil {
				return fmt.Errorf("asset %s: %w", keyString(k), err)
			}
			out = append(out, a)
			return nil
		})
	})
	return out, err
}
