package storage

import (
	"bytes"
	"encoding/json"
)

// Until migration 5, an idempotency record kept the whole response body ("body", base64 in
// the record's JSON): the success envelope {"data":…,"meta":{}} the server wrote around the
// created resource. Both create routes wrote exactly that envelope, with empty meta.
var (
	legacyEnvelopeHead = []byte(`{"data":`)
	legacyEnvelopeTail = []byte(`,"meta":{}}`)
)

// migrateIdempotencyData is migration 5: every record that still holds a response body gets
// the resource inside it as "data" instead, so the server's envelope around it gives back
// the same bytes. A body that is not the envelope the create routes wrote cannot come from
// cutroom; such a record is dropped (it would have expired within 24 h anyway), never
// replayed with other bytes. The other members of a record are kept as they are.
func migrateIdempotencyData(tx Tx) error {
	b := tx.Bucket(bucketIdempotency)
	puts := map[string][]byte{}
	var drops [][]byte
	err := b.ForEach(func(k, v []byte) error {
		var rec map[string]json.RawMessage
		if err := json.Unmarshal(v, &rec); err != nil {
			drops = append(drops, copyBytes(k))
			return nil
		}
		rawBody, ok := rec["body"]
		if !ok {
			return nil // already in the new shape
		}
		var body []byte
		if err := json.Unmarshal(rawBody, &body); err != nil {
			drops = append(drops, copyBytes(k))
			return nil
		}
		data, ok := legacyData(body)
		if !ok {
			drops = append(drops, copyBytes(k))
			return nil
		}
		delete(rec, "body")
		rec["data"] = data
		val, err := json.Marshal(rec)
		if err != nil {
			return err
		}
		puts[string(k)] = val
		return nil
	})
	if err != nil {
		return err
	}
	for k, v := range puts {
		if err := b.Put([]byte(k), v); err != nil {
			return err
		}
	}
	for _, k := range drops {
		if err := b.Delete(k); err != nil {
			return err
		}
	}
	return nil
}

// legacyData returns the data of a stored success envelope, when body is one.
func legacyData(body []byte) (json.RawMessage, bool) {
	if !bytes.HasPrefix(body, legacyEnvelopeHead) || !bytes.HasSuffix(body, legacyEnvelopeTail) ||
		len(body) < len(legacyEnvelopeHead)+len(legacyEnvelopeTail) {
		return nil, false
	}
	data := body[len(legacyEnvelopeHead) : len(body)-len(legacyEnvelopeTail)]
	if !json.Valid(data) {
		return nil, false
	}
	return json.RawMessage(copyBytes(data)), true
}
