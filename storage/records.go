package storage

import (
	"encoding/json"

	bolt "go.etcd.io/bbolt"
)

// values returns a copy of every value of a top-level bucket, in key order, in a read
// transaction of its own.
func (db *DB) values(bucket []byte) ([][]byte, error) {
	var raws [][]byte
	err := db.bolt.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucket).ForEach(func(_, v []byte) error {
			raws = append(raws, copyBytes(v))
			return nil
		})
	})
	return raws, err
}

// getEach returns a copy of the value of each of keys in b (nil where absent), in order.
func getEach(b *bolt.Bucket, keys [][]byte) [][]byte {
	raws := make([][]byte, len(keys))
	for i, k := range keys {
		raws[i] = copyBytes(b.Get(k))
	}
	return raws
}

// decodeEach decodes records read by values or getEach, outside their transaction, with
// decode (given each record's index); the first error stops it.
func decodeEach[T any](raws [][]byte, decode func(i int, raw []byte) (T, error)) ([]T, error) {
	out := make([]T, 0, len(raws))
	for i, r := range raws {
		v, err := decode(i, r)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// unmarshal is a decodeEach decoder for records that need no check beyond their JSON.
func unmarshal[T any](_ int, raw []byte) (T, error) {
	var v T
	err := json.Unmarshal(raw, &v)
	return v, err
}
