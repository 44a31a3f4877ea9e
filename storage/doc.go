// Package storage is cutroom's database: embedded, on bbolt (the default), or shared by
// several processes, on PostgreSQL. It is the only package that imports bbolt or pgx.
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
// Two engines, one implementation (issue 32). Every rule of the store (each record and its
// indexes, the 2-active limit and credits checked and debited in the task's transaction,
// idempotency records in the resource's transaction, the record migrations, records.go's
// checks) is written once, against a small key-value transaction layer (kv.go: Tx, Bucket,
// Cursor; bbolt's model and the methods of it storage uses), and runs on either engine:
// bbolt (kv_bolt.go: the bbolt types themselves; the file format is unchanged, and `make
// run` is still one process on one file) or PostgreSQL (kv_pg*.go, through pgx: OpenPostgres).
// PostgreSQL came in under the rules rather than beside them, for three reasons. There is one
// implementation of the semantics, tested once against both engines (the tests run on
// each: OpenEngine, Engines). Serializable isolation gives across processes the guarantee the
// rules were written for, bbolt's single writer: PostgreSQL aborts one of two transactions
// whose reads and writes interleave in a way no serial order explains (SQLSTATE 40001, or
// 40P01 for a deadlock) and the engine runs it again, with a jittered backoff, up to
// PostgresOptions.Attempts times; so two nodes creating exports for one workspace at once
// can never exceed its active limit or overdraw its credits (the race tests). And a closure
// that may run again is the one new rule (update's fn sets what it reports afresh; a caller's
// UpdateExport change is free of side effects), which the "bbolt-rerun" test engine checks by
// running every update twice. The cost: records are JSON values in a key-value table (kv:
// bucket, key -> value; nested buckets as rows naming a child bucket), not columns SQL can
// query, and each statement is a round trip to the server. So the engine spends few: a
// transaction's Puts and Deletes wait and go in one batch, before the next statement on
// their bucket or the commit; a page's records are read in one query (getMany); the
// top-level buckets' ids are read once. TestRoundTrips counts them for the API's frequent
// calls (a warm one: its workspace's nested buckets exist): CreateProject 5 round trips
// (13 before the batching, counted cold), CreateExport 8, UpdateExport 8 (its read and the
// read of the task's change stamp, changes.go, included), ExportTask 3 (BEGIN, the read, ROLLBACK), a page of 20 exports 5 (24
// before getMany). Measured (BenchmarkOperations, -benchtime 300x -count 7, medians;
// PostgreSQL 15 on loopback as internal/pgtest runs it, fsync off; bbolt in the temp dir,
// an fdatasync a commit; 2 cores shared with other work, load average 9.7 to 8.8, 4.2 s user
// and 4.3 s sys for the whole run, the server's processes included):
//
//	                bbolt      PostgreSQL
//	CreateProject   2301 µs    430 µs
//	CreateExport    3519 µs    458 µs
//	UpdateExport     396 µs    308 µs
//	ExportTask         6 µs    103 µs
//	ListExports 20   151 µs    696 µs
//
// A read costs PostgreSQL about 100 µs where bbolt answers from its memory map in 6. The
// writes are not comparable: bbolt's wait for the disk, which the other work on the machine
// made up to 6 times slower than on a quiet one (an earlier run at load 5.7: CreateProject
// 359 µs, CreateExport 369 µs, UpdateExport 267 µs), PostgreSQL's here do not (fsync off);
// a production server adds its WAL flush to each commit.
//
// The calls that read many records read them in a number of round trips that does not grow
// with the records (TestRoundTripsOfMany: the same for 2 tasks as for 20 in 10
// workspaces): RenewLeases 4 (BEGIN, the tasks by getMany, the writes in one batch,
// COMMIT; 42 for 20 leases before, a read per task and, before each, the flush of the
// previous task's write), ActiveExportTasks 4 (every workspace's active index by
// nestedKeys, the tasks by getMany; 43 for 20 tasks before, two reads a workspace and one
// a task), AssetRecords and ExportTasksByID 3 (what the blob sweep reads for a page of
// objects, and a node's check of its leases at a commit signal; 60 for 20 records before,
// a read transaction each). Measured on PostgreSQL (BenchmarkLeases; app's
// BenchmarkOrphanedFiles, CUTROOM_TEST_DATABASE=postgres; -count 5 twice, the code before
// and after alternately, medians of the 10; load average 10.2 to 8.2 on 2 cores shared
// with other work):
//
//	                           before     after
//	RenewLeases, 4 leases       400 µs    374 µs
//	RenewLeases, 20 leases     2732 µs   1082 µs
//	ActiveExportTasks, 20      1442 µs    632 µs
//	a sweep page, 256 objects  31.1 ms    2.4 ms
//
// CPU, user and system, of each whole run (its setup and the server's processes
// included): BenchmarkLeases/postgres 5.3 and 6.1 s before, 3.3 and 3.3 s after;
// BenchmarkOrphanedFiles 7.0 and 9.1 s before, 1.9 and 1.8 s after. A sweep's 10,000
// objects (blob.DefaultSweepChecks) now cost about 0.1 s of record reads, where they cost
// about 1.2 s.
//
// The task change log (changes.go, issue 32): every transaction that stores a task also
// records the task as it stored it, and each change gets a sequence in the log that export's
// event tail on every node follows (a change is visible only with every change before it).
// On bbolt the change takes the log bucket's sequence in its own transaction: sequence order
// is commit order. On PostgreSQL that one sequence row, updated by every task write, made
// concurrent writes of different tasks abort each other (16 writers at full speed: 652
// writes/s where 2,043 went without it, and some writes failed after all their retries), so
// there a write puts its change in a waiting bucket under an order stamp (its clock, raised
// above the task's previous stamp) and SequenceTaskChanges, called by every node's tail,
// moves committed waiting changes into the log in transactions that contend only with each
// other (a lost race leaves the changes for the next call). Each task's changes keep their
// commit order; different tasks' follow their stamps. Writers of different tasks on two
// nodes, with both nodes sequencing every millisecond (load average 6-9 on 2 cores): 16 at
// full speed 1,206 writes/s (2,043 without the log), 64 each every 20 ms 1,047 (1,496), 64
// each every 100 ms 510 (556); no write failed. The log's epoch, random and kept in
// the database, names it in event ids; TrimTaskChanges bounds it.
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
// database file is never missing or partial and a refusal changes nothing. These are bbolt's:
// on PostgreSQL, Snapshot, Path, CheckFile and Restore refuse with ErrNotBBolt, and backups
// are pg_dump's.
package storage
