// Package app is cutroom's composition root: the App builds the components from a Config,
// runs them and shuts them down in order. It is a package, not part of the main package, so
// that everything that runs the server runs the same wiring: the `serve`, `export` and admin
// commands (main), the App's tests, and the benchmark program bench/exports.
//
// What it owns. An App owns the database (storage), the asset store, the font library, the
// renderer (render.Pipeline), the export service and its scheduler, the webhook deliverer,
// one janitor (sweeping expired idempotency records and, with a blob store, the files no
// record serves: blobsweep.go), the HTTP server and, when serving, its
// own metrics registry (metrics.New; never Prometheus's global registry), which it hands to
// the server, the export service, the renderer, the deliverer and the asset store, and
// whose scrape-time gauges read the database, the scheduler and the data dir's disk. The components
// themselves know nothing of one another beyond their import directions (DESIGN.md); the App
// is the one place that passes one to another (the export service's Notify is the
// deliverer's, the asset store's reference check reads export tasks, one link signer signs
// asset file links and export output links, uploaded fonts join the font library, the
// server's backup route takes its snapshots from the database).
//
// Opening, in order:
//
//   - OpenDB opens only the database (with a clear message when a running server holds its
//     lock). The admin commands stop here; serve calls it first to set up the default
//     workspace before it listens. Config.Database picks the engine (database.go): empty,
//     the bbolt file in the data dir; a postgres:// URL, that PostgreSQL database, opened
//     with retries for DatabaseWait (a node often starts before its database; only a
//     failure that may pass is retried: storage.ConnectRetryable), its password redacted
//     from every message (the URL is never logged or returned whole).
//   - LockDataDir (serve, and Open with a listener) keeps a second serving node off the
//     data dir on a shared database, where no bbolt lock does (datadirlock.go); the admin
//     commands take no lock there and run beside the nodes.
//   - Open(ctx, nil) adds the font library and the asset store's read side: what
//     `cutroom export` needs (without a DataDir, only the font library). With
//     --blob-store nats that store fetches the files from the object store into a scratch
//     directory Close removes, leaving the data dir's copies, a node's, alone
//     (readFileAreas).
//   - Open(ctx, ln) builds everything serving needs: the asset store (crash leftovers of
//     uploads swept, uploaded fonts loaded), the renderer, the outbound-address guard, the
//     deliverer, the export service, the HTTP server on ln and the janitor.
//
// Running and shutting down. Run starts the janitor, the deliverer and the scheduler, serves,
// records where it listens in the data dir's ServerFile (server.json: Listening, the ready
// object's members; an app that bundles the server, docs/bundling.md, and a second start on
// the data dir read it, the latter through OpenDB's InUseError) and then calls Config.Ready,
// so that a request sent from then on is answered; it serves until its context ends or the
// server or the scheduler fails. The record is removed when the shutdown begins, while the
// database's lock is still held, so a record beside a free lock is a killed server's. The
// shutdown then goes in order, bounded as a whole by ShutdownGrace: the listener closes and
// the scheduler is stopped (its renders are recorded PAUSED) while requests in flight finish;
// what has not ended when the grace runs out is abandoned and logged (renders recorded
// PAUSED, so the next start resumes them); then the deliverer and the janitor stop
// (deliveries in flight are retried at the next start). Close, after Run returned (or instead
// of it), closes a listener never served and, last, the database.
//
// Health. The App answers the readiness probe (GET /readyz, server.Health): the database
// answers a read (within databasePingTimeout, 2 s, so a PostgreSQL that stops answering
// fails the probe rather than holding it; its engine and the read's time are reported
// beside), a byte can be written in the data dir, its filesystem is above the
// free-space floor (these filesystem checks, and the --blob-store DIR write, run beside
// the database's, single-flight within fsCheckTimeout, 2 s: a hung mount, whose calls no
// context ends, fails its check "not_responding" with at most one call stuck per check,
// boundedcheck.go), the encoders opened when Open ran (render.CheckEncoders, once: linked
// libraries do not come and go), and ffmpeg's state as Open found it (reported, never
// failing). One diskspace.Guard of the data dir, with MinFreeDisk, is the floor of the asset
// store's uploads, the export service's creates and the readiness check.
//
// Cluster. With Config.Cluster set (--cluster-listen or --nats), Open starts the embedded NATS
// server or dials the existing one and the export service renders through a
// cluster.Coordinator instead of the pipeline: long exports go to the workers in segments
// (Pipeline.SplitByCost, Pipeline.RenderSegment on the workers, Pipeline.JoinSegments here, handed to
// cluster as functions), short ones render in-process as before unless CoordinatorOnly. Run
// also runs an in-process worker (not when CoordinatorOnly), stopped before the scheduler
// so its segments go back to the queue; Close drains the connection and stops the embedded
// server last. RunWorker is `cutroom worker`: the same segment renderer, on the App's fonts
// and ffmpeg, without a data dir. The zero ClusterSettings start nothing.
//
// Files. Config.Blobs (--blob-store) says where uploads and outputs live: the data dir (the
// zero value, unchanged), the NATS object store of the cluster's connection (BlobStoreNATS:
// Open joins NATS first, opens cluster.FileObjects and gives one blob.Store over it, rooted
// at the data dir, to the asset store and the export service), or a directory every node
// mounts (files/ and outputs/ under it; the asset store told it is shared). The free-space
// floor then guards the filesystem the files are written to, and /readyz adds blobStore
// (the object store answers, or the directory takes a write) and reports blobStoreKind.
// PushBlobs (`cutroom blobs push`) puts an existing data dir's files into the object store.
//
// Uploaded fonts on several nodes (fontsync.go). Uploaded fonts are global (every
// workspace's join the one library), and each node must hold every font uploaded on any
// node sharing the database before it checks or draws a state naming it. Decision: a font
// generation in the database (storage.FontGeneration, bumped in the font asset's own
// transaction) rather than a NATS subject or a poll: one key read tells a node whether its
// fonts are current, so it can check before each validate, export create, preview, render
// and GET /v1/fonts, which closes the race with the commit signal it also follows on
// PostgreSQL ((*storage.DB).Subscribe). A refresh reads the font records in one
// transaction (storage.FontAssets) and fetches only the files it lacks (assets'
// FontFiles, kept local copies); requests wait for it at most 5 s, renders 1 min. On bbolt
// only a state naming a missing family checks (BenchmarkFontCheck: a hit costs what it
// did, 0.1 µs; a miss 1.05 µs on bbolt, 106 µs on a loopback PostgreSQL; load 4). Frame previews are keyed by the library's additions (server.VersionedPreviews,
// render.Still.Fonts): before, a preview drawn before a font upload was served after it,
// on one node too. Deleting a font still leaves it in the libraries until restart.
//
// Defaults. Config's zero values take documented defaults: LockTimeout DefaultLockTimeout,
// ShutdownGrace DefaultShutdownGrace, JanitorInterval DefaultJanitorInterval, MinFreeDisk the
// smaller of diskspace.DefaultMinFreeBytes and DefaultMinFreePercent of the filesystem, HeaderPrefix
// webhook.DefaultHeaderPrefix, PublicURL http://<listener address>, RenderSettings the
// render package's (FrameWorkers NumCPU-1), and the component configs (Server, Assets,
// Export) their packages' defaults. An empty FFmpeg or FFprobe means none; no Logger means
// no logs. The command-line flags take their defaults from the same constants.
package app
