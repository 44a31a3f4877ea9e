// Package diskspace keeps cutroom's writes from filling the data dir's filesystem and says
// so to clients when it is full.
//
// Decisions:
//   - Two refusals, one code. Work that would add data (an upload, a new export) is refused
//     by [Guard.Admit] while the filesystem's free space is below a floor, before the disk is
//     actually full; a write that fails for lack of space anyway (ENOSPC or EDQUOT from a
//     file write or from bbolt's commit) is turned by [Refuse] into the same API error:
//     STORAGE_FULL, kind apierr.InsufficientStorage (507), with a Retry-After of
//     [RetryAfterSeconds]. Nothing is stored in either case.
//   - The floor (--min-free-disk) is a number of bytes; zero means the smaller of
//     [DefaultMinFreeBytes] (1 GiB) and [DefaultMinFreePercent] (5 %) of the filesystem's
//     size, so a small disk is not refused from the start; a negative floor turns the check
//     off (writes are then refused only when they fail).
//   - The mapping happens where the write happens: the asset store maps its file writes
//     and record commits, the export service its task commits, the server its project
//     commits. storage speaks no API vocabulary and lets the system error through; bbolt
//     flattens a few of its errors to text ("file resize error: no space left on device"),
//     so [IsFull] also recognises ENOSPC's message.
//   - Deletions are never guarded: removing files and records is how space comes back, so
//     the janitors, DELETE routes and expiry keep working on a full disk.
//   - A failure to read the free space (statfs) does not refuse work: the write itself then
//     tells. Readiness reports it.
//   - The free space is the space an unprivileged process may use (statfs's f_bavail), the
//     figure df shows as available; on Windows GetDiskFreeSpaceEx's bytes available to the
//     caller, quotas applied (space_windows.go). A full disk there is ERROR_DISK_FULL or
//     ERROR_HANDLE_DISK_FULL, recognised by [IsFull] as ENOSPC and EDQUOT are elsewhere.
package diskspace
