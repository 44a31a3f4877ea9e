package diskspace

import (
	"errors"
	"strings"

	"github.com/cutroom/cutroom/apierr"
)

// CodeStorageFull is the refusal of a write for lack of space (507).
var CodeStorageFull = apierr.Define(apierr.InsufficientStorage, "STORAGE_FULL")

// RetryAfterSeconds is the Retry-After of a STORAGE_FULL answer: space comes back when an
// operator or the janitor frees it, not within seconds.
const RetryAfterSeconds = 60

// IsFull reports whether err is a write that failed for lack of space: it is or wraps one
// of the system's "disk full" errors (ENOSPC or EDQUOT; on Windows ERROR_DISK_FULL or
// ERROR_HANDLE_DISK_FULL), or its text carries one's message (bbolt formats some of its
// file errors with %s, which drops the chain).
func IsFull(err error) bool {
	if err == nil {
		return false
	}
	for _, e := range fullErrnos() {
		if errors.Is(err, e) || strings.Contains(err.Error(), e.Error()) {
			return true
		}
	}
	return false
}

// Refuse returns err as a STORAGE_FULL error when it is a write that failed for lack of
// space and not an API error already, and err itself otherwise (nil included). The cause
// stays in the chain for the log; the client never sees it.
func Refuse(err error) error {
	if !IsFull(err) || apierr.As(err) != nil {
		return err
	}
	return CodeStorageFull.Wrap(err, "the server's storage is full; nothing was stored; retry after space is freed").
		WithRetryAfter(RetryAfterSeconds)
}
