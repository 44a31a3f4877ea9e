package storage

import "testing"

// TestRerunAddKey: AddKey's transaction first finds the secret a live key's and, when it
// runs again after another node revoked that key, stores a new key: AddKey returns the key
// it stored, not the one the first run found (which it did while its result was set only on
// the first run).
func TestRerunAddKey(t *testing.T) {
	db := OpenEngine(t, "bbolt-rerun", nil)
	ws, _, err := db.EnsureDefaultWorkspace()
	if err != nil {
		t.Fatal(err)
	}
	const secret = "0123456789abcdef-secret"
	first, err := db.AddKey(ws.ID, "first", secret)
	if err != nil {
		t.Fatal(err)
	}
	db.kv.(*rerunEngine).between = func() {
		if _, err := db.RevokeKey(first.ID); err != nil {
			t.Error(err)
		}
	}
	again, err := db.AddKey(ws.ID, "again", secret)
	if err != nil {
		t.Fatal(err)
	}
	p, err := db.Authenticate(secret)
	if err != nil {
		t.Fatal(err)
	}
	if again.ID == first.ID || p.Key.ID != again.ID {
		t.Fatalf("AddKey returned key %s (the revoked one: %s); the secret authenticates as %s", again.ID, first.ID, p.Key.ID)
	}
}
