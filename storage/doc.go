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
// that. CheckFile opens a candidate file read-only and checks it in full: meta pages, a
// size that holds every page, every bucket, key and value read under a fault guard (a
// damaged page is an error, not a crash: bbolt's own check runs in a goroutine where a
// panic would end the process, so everything it reads is read first here), bbolt's
// tx.Check, and a schema version no newer than len(migrations). Restore checks a copy made
// inside the data dir, takes the database's lock (refused with ErrLocked while a server
// holds it), keeps the current file as a .bak hard link and renames the copy over it, so the
// database file is never missing or partial and a refusal changes nothing.
package storage
