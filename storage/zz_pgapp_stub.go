package storage

// TEMPORARY (branch w-pgapp): the name of w-store's Copy, so that `cutroom migrate`
// compiles before it lands; removed when w-store's is merged.

import (
	"context"
	"errors"
)

// CopyStats count what Copy copied.
type CopyStats struct{ Buckets, Keys int }

// Copy is not built yet on this branch.
func Copy(ctx context.Context, from, to *DB) (CopyStats, error) {
	return CopyStats{}, errors.New("storage.Copy is not built yet")
}
