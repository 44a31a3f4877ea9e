package storage

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"testing"
	"time"
)

// TestMigrateIdempotencyData writes a database as the version before migration 5 left it
// (schema version 4, records holding the whole response body) and opens it: the records
// then hold the resource, and the server's envelope around it (an envelope marshalled the
// way server.ok marshals it) is the old body byte for byte.
func TestMigrateIdempotencyData(t *testing.T) {
	dir := t.TempDir()
	now := time.Now().UTC()
	// Bodies as the create routes wrote them: json.Marshal of {data, meta:{}}, HTML escaped.
	projectBody := []byte(`{"data":{"projectId":"5d1c7c3e-8f5e-4d52-9a53-0c8f9e6f5b11","title":"caf\u00e9 \u003cb\u003e","description":null,` +
		`"stateVersion":"v1","createdAt":"2026-11-24T09:00:00.000Z","updatedAt":"2026-11-24T09:00:00.000Z"},"meta":{}}`)
	exportBody := []byte(`{"data":{"taskId":"0b6f4f8e-2f0a-4d8e-b7a4-3e0f4c9a1d22","projectId":null,"createdAt":"2026-11-24T09:00:00.000Z",` +
		`"durationSeconds":1.5,"billedStandardSeconds":2,"chargedCredits":"20","chargedCreditPool":"unlimited"},"meta":{}}`)
	old := map[string][]byte{"project": projectBody, "export": exportBody, "alien": []byte(`<html>`)}

	writeOldDatabase(t, dir, 4, func(tx Tx) error {
		for scope, body := range old {
			// The old record's JSON, built by hand: body is a []byte, so base64.
			val := []byte(`{"scope":"` + scope + `","requestHash":"h-` + scope + `","status":201,"body":"` +
				base64.StdEncoding.EncodeToString(body) + `","createdAt":"` + now.Format(time.RFC3339Nano) +
				`","expiresAt":"` + now.Add(24*time.Hour).Format(time.RFC3339Nano) + `"}`)
			if err := tx.Bucket(bucketIdempotency).Put([]byte(scope), val); err != nil {
				return err
			}
		}
		return nil
	})

	db, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, scope := range []string{"project", "export"} {
		rec, err := db.Idempotency(scope)
		if err != nil || rec == nil {
			t.Fatalf("%s: %v %v", scope, rec, err)
		}
		if rec.Scope != scope || rec.RequestHash != "h-"+scope || rec.Status != 201 || !rec.ExpiresAt.Equal(now.Add(24*time.Hour)) {
			t.Fatalf("%s: members changed: %+v", scope, rec)
		}
		replay, err := json.Marshal(struct {
			Data any            `json:"data"`
			Meta map[string]any `json:"meta"`
		}{json.RawMessage(rec.Data), map[string]any{}})
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(replay, old[scope]) {
			t.Fatalf("%s: replay differs\n got %s\nwant %s", scope, replay, old[scope])
		}
	}
	if rec, err := db.Idempotency("alien"); err != nil || rec != nil {
		t.Fatalf("a record whose body is no create envelope was kept: %+v %v", rec, err)
	}
	// A record in the new shape goes through as it is.
	fresh := IdempotencyRecord{Scope: "new", Status: 201, Data: json.RawMessage(`{"a":1}`), CreatedAt: now, ExpiresAt: now.Add(time.Hour)}
	if err := db.PutIdempotency(fresh); err != nil {
		t.Fatal(err)
	}
	if err := db.update(migrateIdempotencyData); err != nil {
		t.Fatal(err)
	}
	if rec, err := db.Idempotency("new"); err != nil || rec == nil || string(rec.Data) != `{"a":1}` {
		t.Fatalf("new-shape record: %+v %v", rec, err)
	}
}
