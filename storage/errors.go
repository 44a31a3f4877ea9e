package storage

import (
	"errors"
	"fmt"
)

// Errors of storage. storage speaks no API vocabulary: it reports what it found with these
// sentinels (wrapped with the id or name concerned; test with errors.Is), and its callers
// decide what a client or an operator sees.
var (
	ErrProjectNotFound   = errors.New("storage: project not found")
	ErrWorkspaceNotFound = errors.New("storage: workspace not found")
	// ErrWorkspaceExists: CreateWorkspace was given a name another workspace has
	// (case-insensitively).
	ErrWorkspaceExists = errors.New("storage: workspace name taken")
	// ErrAPIKeyNotFound: no live API key has that secret (Authenticate) or id (RevokeKey).
	ErrAPIKeyNotFound = errors.New("storage: API key not found")
	// ErrIdempotencyKeyExists: a create's idempotency record is stored already.
	ErrIdempotencyKeyExists = errors.New("storage: idempotency key exists")
	ErrTaskNotFound         = errors.New("storage: export task not found")
	// ErrContention: a write on PostgreSQL lost the race with other transactions every
	// time it ran (PostgresOptions.Attempts): the database is too busy for it now, and the
	// same write may pass a moment later. Nothing was written.
	ErrContention    = errors.New("storage: the write lost every race with other transactions")
	ErrAssetNotFound = errors.New("storage: asset not found")
	ErrAssetNotBound = errors.New("storage: asset not bound to the project")
	// ErrReferencesChanged: SoftDeleteAssetIfUnchanged found editor states written since the
	// version it was given.
	ErrReferencesChanged = errors.New("storage: editor states changed")
	// ErrInvalidCursor: a page cursor storage did not hand out.
	ErrInvalidCursor = errors.New("storage: invalid page cursor")
	// ErrTooManyActive and ErrInsufficientCredits are CreateExport's refusals; each comes
	// as a *LimitError with the numbers.
	ErrTooManyActive       = errors.New("storage: too many active export tasks")
	ErrInsufficientCredits = errors.New("storage: insufficient credits")
)

// Refusals of the operator's input (the admin commands and serve print them as they are).
var (
	ErrWorkspaceNameInvalid = errors.New("workspace name must be 1..100 characters")
	ErrAPIKeyInvalid        = errors.New("an API key must be 16..256 characters")
	ErrAPIKeyTaken          = errors.New("that API key is already used by another workspace or was revoked")
	ErrCreditsNegative      = errors.New("a credit balance cannot be negative")
)

// LimitError is a refusal of CreateExport with its numbers: Err is ErrTooManyActive (Have:
// the workspace's active tasks) or ErrInsufficientCredits (Have: the balance, Need: the
// charge).
type LimitError struct {
	Err        error
	Have, Need int64
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("%v (have %d, need %d)", e.Err, e.Have, e.Need)
}

// Unwrap returns the sentinel.
func (e *LimitError) Unwrap() error { return e.Err }

// notFound wraps a sentinel with the id or name it is about.
func notFound(sentinel error, what string) error {
	return fmt.Errorf("%w: %s", sentinel, what)
}
