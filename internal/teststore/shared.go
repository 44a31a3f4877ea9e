package teststore

import "github.com/cutroom/cutroom/storage"

// Shared is a real database that reports other processes use it too (Shared: true), as a
// PostgreSQL one does: the export schedulers and webhook deliverers a test runs over it in
// one process act as the nodes of a deployment, each with its node id.
type Shared struct{ *storage.DB }

// Shared reports true.
func (Shared) Shared() bool { return true }
