// Package blob keeps uploaded files and export outputs where every API node reads them
// (`serve --blob-store nats`): an object store every node reaches (Objects; the App gives
// cluster.FileObjects, JetStream's Object Store "cutroom-files") behind local copies in the
// node's data dir, bounded in bytes. The asset store and the export service call it with the
// paths they always used (<data-dir>/files/assets/..., <data-dir>/outputs/...), so their
// layout, links and records are unchanged; a nil *Store is the local disk alone, and their
// code has one path for both.
//
// Decisions:
//
//   - Write-through before the record. An upload is put into the object store after it is
//     probed and renamed into place and before its record commits; an output is put after
//     the render and before its task becomes COMPLETED. So an acknowledged upload, and a
//     COMPLETED task's output, are on the NATS cluster: the node that wrote them may die at
//     once. A put that fails refuses the upload with 503 BLOB_STORE_UNAVAILABLE (nothing
//     stored, no record) or fails the task with that code (refunded).
//   - Verified. Put hashes the bytes it reads (SHA-256) and compares the size and digest
//     the object store recorded; a fetch is checked by the Object Store itself against the
//     digest it recorded (the read fails at the end on a mismatch), and nothing is renamed
//     into place before the whole object was read and synced.
//   - Names. An object's name is its file's path under the data dir, with slashes:
//     files/assets/<workspace>/<asset>/<name> and outputs/<task>/<task>.<format>. Asset and
//     task ids are UUIDs, so two nodes never write one name. The bucket "cutroom-files" is
//     apart from cluster's "cutroom-objects", whose objects are named by content and expire
//     (DefaultObjectTTL): files live until their asset is deleted or their output expires,
//     and an asset's delete must not remove the bytes another asset shares. Naming by path
//     needs no new field in the records.
//   - Read-through. Reads go through a local file (the renderer, ffmpeg and the fonts read
//     paths): Fetch makes it present, fetching it on a miss into a temp file beside it
//     (".fetch-*", never visible half-written, removed at the next start if a crash left
//     it), and pins it until released. Concurrent misses of one file fetch it once. An
//     object larger than MaxBytes is refused rather than fetched.
//   - Bounded copies. The copies (uploads and outputs this node wrote, files it fetched)
//     count against MaxBytes (--blob-cache-bytes, DefaultCacheBytes); over it, the least
//     recently used copies not pinned go. Pins: a download holds its file until it is
//     open (an open file stays readable after its copy goes); a render holds the files it
//     resolved until its context ends (assets.Store.ResolveFor); uploaded fonts are held
//     for the process's life (the font library and cluster jobs name them by path). Size
//     the bound above what the renders running at once read, as with the worker's cache,
//     whose account is the same type (Copies: bytes, use times, pins, fetches in flight).
//   - Nothing is evicted that may be the only copy. The index (IndexName, in the data dir)
//     lists the copies the object store is known to hold (put or fetched); a file found at
//     start that it does not list (an install from before --blob-store nats) is kept
//     whatever the bound, with a warning, until `cutroom blobs push` puts it. A line lost in
//     a crash only keeps a copy longer.
//   - Deletes. Deleting an asset (after its record's soft delete commits) or an expired
//     output removes the local copy and the object. Other nodes' copies of it are not
//     told: the records decide what is served (a deleted asset or purged output is never
//     served), and the copies go with their eviction. Objects can be left behind without
//     a record, never served: a crash between an upload's put and its record's commit, an
//     upload refused after its put, or a delete while NATS does not answer (Drop gives up
//     after DropTimeout and logs it). The Sweeper removes them.
//   - Sweeping (Sweeper, run by the App's janitor on every node, every 10 minutes by
//     default). It streams the object store's listing (no list held in memory), hands
//     the names older than the grace to the caller's Orphaned a page at a time, which
//     reads the records after the listing, and removes those it names. An object younger
//     than the grace (DefaultSweepGrace, an hour) is left: an upload's object is put
//     before its record commits, perhaps on another node, and a sweep must not take it
//     in between. An output whose task is still active is kept too (the App's Orphaned):
//     a task resumed elsewhere renders again and puts the same name. Each run examines at
//     most DefaultSweepChecks objects and removes at most DefaultSweepDeletes, and the
//     next run goes on from where it stopped (a count of entries to skip, per node; an
//     entry skipped for a shift of the listing is examined on the next pass). Several
//     nodes sweep at once without coordination: deleting an object twice is no error,
//     and a record read after the listing keeps its object. An error of the object store
//     (or of the records) ends the run, logged; the next run examines that part again.
//     The listing costs 11 µs an object (BenchmarkSweepExamine: 2000 objects of an
//     embedded NATS, every one recorded; median of 3, load average 8, 8 CPU seconds for
//     the whole run with its puts), so a run's 10 000 cost about 0.1 s of listing; the
//     App's Orphaned reads a page's records in two queries (2.4 ms for 256 objects on
//     PostgreSQL, 31 ms at one read an object: storage/doc.go).
//   - Replication is the object store's: the App creates "cutroom-files" with
//     --blob-replicas copies (1 by default) when it does not exist, and keeps the
//     configuration of an existing one, so an operator may create it first (`nats object
//     add cutroom-files --replicas 3`) or raise it later (`nats stream edit
//     OBJ_cutroom-files --replicas 3`).
//   - What writing through costs (app's BenchmarkUpload16MiB: a 16 MiB upload over
//     loopback, an embedded NATS server on the same 2-core VM; medians of 3 runs of 10,
//     load average 6, 4.2 CPU seconds a run): 30 ms on the data dir alone, 106 ms with
//     the put into the object store (158 MB/s); the first download on another node, which
//     fetches it, 82 ms; a download from the copy 8.5 ms. The put is paid once per upload
//     and output, before the answer; a node reads its copies at local speed.
//   - The alternative, a directory every node mounts (--blob-store DIR, e.g. NFS), needs no
//     package: the App points the files area and the outputs at it, and the asset store's
//     crash sweep leaves young temp files and record-less directories alone there (another
//     node's upload in progress; assets.SharedGrace).
package blob
