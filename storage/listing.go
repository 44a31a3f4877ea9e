package storage

import (
	"encoding/json"
)

// allRecords returns every record of a top-level bucket, in key order, decoded from JSON
// after its read transaction.
func allRecords[T any](db *DB, bucket []byte) ([]T, error) {
	var raws [][]byte
	err := db.view(func(tx Tx) error {
		return tx.Bucket(bucket).ForEach(func(_, v []byte) error {
			raws = append(raws, copyBytes(v))
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	return decodeEach(raws, func(_ int, raw []byte) (T, error) {
		var v T
		err := json.Unmarshal(raw, &v)
		return v, err
	})
}

// pageSource is where a page of records comes from: an index bucket whose values are the
// records' keys, newest last (pageDesc), the bucket holding the records, and optionally
// which keys to keep.
type pageSource struct {
	index, records Bucket
	keep           func(key []byte) bool
}

// page returns a page of records, newest first, and the cursor of the next page ("" on the
// last page). from picks the source inside the read transaction (its error ends the read);
// decode turns each record, with its key, into T after the transaction.
func page[T any](db *DB, cursor string, pageSize int, from func(tx Tx) (pageSource, error), decode func(raw []byte, key string) (T, error)) ([]T, string, error) {
	ck, err := decodeCursor(cursor)
	if err != nil {
		return nil, "", err
	}
	var keys, raws [][]byte
	var next string
	err = db.view(func(tx Tx) error {
		src, err := from(tx)
		if err != nil {
			return err
		}
		keys, next = pageDesc(src.index, ck, pageSize, src.keep)
		raws = getMany(src.records, keys)
		return nil
	})
	if err != nil {
		return nil, "", err
	}
	out, err := decodeEach(raws, func(i int, raw []byte) (T, error) { return decode(raw, string(keys[i])) })
	if err != nil {
		return nil, "", err
	}
	return out, next, nil
}

// decodeEach decodes records copied out of a transaction with decode (given each one's
// index); the first error stops it.
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
