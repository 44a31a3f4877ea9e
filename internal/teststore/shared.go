package teststore

import (
	"context"
	"testing"

	"github.com/cutroom/cutroom/storage"
)

// Shared is a real database that reports other processes use it too (Shared: true), as a
// PostgreSQL one does: the export schedulers and webhook deliverers a test runs over it in
// one process act as the nodes of a deployment, each with its node id.
type Shared struct{ *storage.DB }

// Shared reports true.
func (Shared) Shared() bool { return true }

// PostgresNode opens a handle (one "node") on the PostgreSQL database at url, closed when
// the test ends.
func PostgresNode(t testing.TB, url string) *storage.DB {
	t.Helper()
	db, err := storage.OpenPostgres(context.Background(), url, storage.PostgresOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}
