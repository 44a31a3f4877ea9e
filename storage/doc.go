// Package storage is cutroom's embedded database on bbolt. It is the only package that imports bbolt.
//
// It persists the domain's nouns, defined in package model (workspaces, API keys, projects,
// assets, export tasks, webhook deliveries), as the JSON of those types; its own types are
// the parameters of its operations (WorkspaceInput, ExportLimits) and the idempotency record
// of create requests, which keeps the created resource's JSON and status, never HTTP bytes.
//
// storage speaks no API vocabulary: it reports what it finds with sentinel errors
// (ErrProjectNotFound, ErrTaskNotFound, ...; errors.Is), wrapped with the id concerned, and
// CreateExport's refusals as a *LimitError with the numbers. Its callers decide what a
// client or an operator sees.
//
// Online backups. Snapshot is a bbolt read transaction whose WriteTo streams a complete,
// consistent database file (GET /admin/backup); it is the one transaction that does I/O.
// Writers never wait for readers except to grow the memory map, so Open maps 1 GiB ahead
// (initialMmapSize: address space, not memory; bbolt then grows the file in 16 MiB steps
// instead of doubling it), and a backup holds no writer back until the database outgrows
// that. On Windows the map is 64 MiB (mmap_windows.go): bbolt makes the file as large as
// its map there, and NTFS allocates it. The data dir's lock is bbolt's own on every system
// (flock; LockFileEx on Windows), so a second process on the same data dir waits
// LockTimeout and gets ErrLocked. CheckFile checks a candidate file in full before bbolt trusts it: the page tree,
// read from the file (pages.go: bbolt follows a branch page that names itself until the
// process is killed, and faults on a page past the file's end; so a truncated file is
// refused with its size and the size its meta page needs), then, opened read-only, every
// bucket, key and value read under a fault guard (a damaged page is an error, not a crash:
// bbolt's own check runs in a goroutine where a panic would end the process, so everything
// it reads is read first here), bbolt's tx.Check, a schema version no newer than
// len(migrations) with the buckets it implies, and every record decoded as the store
// decodes it with the indexes in step (records.go: one rule per bucket, as data). Issue 26
// found 140 of 150 byte-changed backups restored, a server that then would not start and
// lists answering 500; now each of 300 such copies is refused or serves every read (the
// tests, and FuzzCheckFile). Restore checks a copy made
// inside the data dir, takes the database's lock (refused with ErrLocked while a server
// holds it), keeps the current file as a .bak hard link and renames the copy over it, so the
// database file is never missing or partial and a refusal changes nothing.
package storage
