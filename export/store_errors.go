package export

import (
	"errors"

	"github.com/cutroom/cutroom/apierr"
	"github.com/cutroom/cutroom/diskspace"
	"github.com/cutroom/cutroom/storage"
)

// The API codes of the refusals storage reports to this package with sentinel errors
// (storage speaks no API vocabulary; the rules live here).
var (
	errProjectNotFound   = apierr.Define(apierr.NotFound, "PROJECT_NOT_FOUND")
	errTaskNotFound      = apierr.Define(apierr.NotFound, "TASK_NOT_FOUND")
	errInvalidPageCursor = apierr.Define(apierr.Invalid, "INVALID_PAGE_CURSOR")
	errTooManyActive     = apierr.Define(apierr.Unprocessable, "OPEN_API_EXPORT_CONCURRENCY_LIMIT_EXCEEDED")
)

// storeError turns storage's sentinel errors into the errors clients see, with the texts
// they have always had, and a commit that failed for lack of space into STORAGE_FULL; id is
// the task or project concerned. Other errors pass through.
func storeError(err error, id string) error {
	var le *storage.LimitError
	switch {
	case errors.Is(err, storage.ErrTaskNotFound):
		return errTaskNotFound.Wrap(err, "export task %s not found", id)
	case errors.Is(err, storage.ErrProjectNotFound):
		return errProjectNotFound.Wrap(err, "project %s not found", id)
	case errors.Is(err, storage.ErrInvalidCursor):
		return errInvalidPageCursor.Wrap(err, "pageCursor is not a cursor this server handed out")
	case errors.As(err, &le) && le.Err == storage.ErrTooManyActive:
		return errTooManyActive.Wrap(err, "this workspace has %d active export tasks (PENDING, PROCESSING or PAUSED), the most allowed; wait for one to finish or cancel one", le.Have)
	case errors.As(err, &le) && le.Err == storage.ErrInsufficientCredits:
		return errInsufficientCredits.Wrap(err, "this export costs %d credits and the workspace has %d", le.Need, le.Have)
	}
	return diskspace.Refuse(err)
}
