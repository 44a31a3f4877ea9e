// Package cluster spreads exports over render workers through NATS JetStream: the
// coordinator (the server) splits a long export into segments of whole frames, publishes one
// job per segment on a work-queue stream, and joins the finished segments; workers (`cutroom
// worker`, and the server itself unless --local-render=false) take jobs, render them and put
// the files back. Nothing is home-made: queueing, redelivery, durable records and file
// transfer are JetStream's.
//
// Decisions:
//
//   - The seam is export.Renderer: Coordinator.Render is the renderer the export service
//     calls, so progress, webhooks, credits, the 2-active limit and crash recovery stay the
//     export package's and are unchanged. An export of at most SegmentSeconds (and every
//     export when the cluster is off) renders in-process as before.
//   - This package knows no compositor and no encoder: the App gives it functions that
//     split, render a segment and join (package render), and that find the files a job draws.
//   - Names: the stream "CUTROOM_SEGMENTS" (work-queue retention, subjects
//     cutroom.segments.<task>.<index>), its durable pull consumer "workers" (explicit acks,
//     AckWait, no delivery limit: the attempts are counted by the workers), the key-value
//     bucket "cutroom-segments" (done.<task>.<index>, fail.<task>.<index>, cancel.<task>;
//     a day's TTL) and the object store "cutroom-objects" (objects named sha256-<hex> of
//     their bytes: states, assets and finished segments, chunked by the Object Store).
//   - A job carries the task's render settings, its frame range, the SHA-256 of its state and
//     of each file it draws (Files): its assets, the workspace illustrations its state names
//     (by name) and the uploaded, data-dir or --fonts font files of the families its text names;
//     never an API key, a workspace's other data or a path. Which files those are is the
//     App's choice (AssetFilesFunc); the worker fetches them through its cache and hands
//     their local copies to the render (RenderSegmentFunc).
//   - A font file travels with how the coordinator's font library describes its faces
//     where that differs from the file's own tables (Job.FontFaces, FontFile.Faces: the
//     subsets of a family installed with its manifest.json take their family, weight,
//     style, unicode-range and rule order from it; the files may all call themselves
//     "TikTok Sans Light"), only then: a file that describes itself adds nothing to the job,
//     and a job of an earlier coordinator, without them, is rendered as before. The worker
//     registers the file with those descriptions (the App: text.Library.AddFontFileAs,
//     which bounds and checks them) instead of its own names, so its frames are the
//     single-node render's. Jobs are not signed (every token holder is a trusted worker,
//     see below); the descriptions enter the render key, hence the job's secret, so a
//     manifest changed while a task was paused makes another render, and a job without
//     descriptions keeps the key it had before they existed.
//   - The coordinator cuts an export with the App's SplitFunc (segments of about equal
//     work, not equal length) and hands the same segments to the join; a done record is
//     taken only for the frames its index has in this cut.
//   - A worker renders a job while telling JetStream it is in progress every AckWait/3; if
//     it dies, JetStream hands the job to another after AckWait. A render error is retried
//     (Nak after a second) until the job's Attempts; the last failure records
//     fail.<task>.<index> with the worker's message, which fails the task naming the segment.
//     A job handed out CrashDeliveries times without finishing (workers dying on it) fails
//     the same way. SIGTERM cancels the worker's renders and Naks their jobs: nothing is left
//     half-way, the segment goes back to the queue at once.
//   - A finished segment is uploaded, then recorded done.<task>.<index> (with the render's
//     key, a hash of the state, the settings and the files drawn), then acked. The
//     coordinator watches these records, so a coordinator that restarts mid-task (its task
//     PAUSED or crashed, then rendered again by the export service) finds the segments
//     already done and publishes only the others, and not one whose job is still in the
//     stream (its subject's last message is the same job): a job still queued or being
//     rendered is not queued twice. Every AckWait it does so again for the segments not
//     done: a job whose worker acked it with a record that was ignored (see below: a worker
//     of an older release, which signs nothing) or that was dropped goes back to the queue,
//     so an export never waits on a job nobody holds. (Message ids would not do: such a
//     segment must be queued again although its job was published before.)
//   - Results are bound to their job. Each job carries a secret, the HMAC-SHA256 of the
//     task, the render key, the index and the frames keyed with the coordinator's Secret
//     (the App's is kept in its database; it never leaves the server). The worker signs
//     its done or fail record with it (HMAC-SHA256 over every field of the record, the
//     task and the index: the segment file's SHA-256 and size, the frames, the worker's
//     name); the coordinator takes a record only for the frames its cut gives the index
//     and only with the right signature, and logs and ignores any other (a record written
//     by a client that never read the job, or copied from another task, segment or render),
//     so the job's worker records the segment in its place; a worker does not take such a
//     record for "done already". Deriving the secret rather than drawing it keeps nothing
//     per job and lets a restarted coordinator check the records of jobs published before.
//     Before the join the coordinator hashes the bytes it downloads: a segment whose object
//     is not the signed SHA-256 fails the task (EXPORT_SEGMENT_CORRUPT) and is never
//     joined. A worker puts its segment even when an object of that name exists, so bytes
//     planted under a segment's name beforehand are replaced, not joined.
//   - Why not per-worker identities: with one shared token NATS cannot tell workers apart;
//     any token holder may read the stream, subscribe to any subject (another worker's
//     inbox included) and take jobs, so it can read a job's secret and sign for it. The
//     secret closes blind writes and replays; docs/cluster.md ("Trust") states that every token holder is
//     a trusted worker (it reads every workspace's jobs and files and can sign the results
//     of jobs it reads). Keeping workers apart would need a NATS user per worker with
//     subject permissions and inbox prefixes of its own, configured on an existing NATS
//     cluster: a change of deployment, not of this package.
//   - Cancel: the coordinator records cancel.<task> and purges the task's queued jobs; every
//     worker watches cancel.> and stops that task's renders at once (well within a second)
//     and drops its jobs. A task that fails is canceled the same way. A pause (shutdown)
//     cancels nothing: workers go on, and the resumed task uses their segments.
//   - The embedded server (--cluster-listen) always requires the token and stores JetStream
//     under <data-dir>/nats; a wrong token is refused by NATS and reported as such.
//   - The object store has a TTL (DefaultObjectTTL, 7 days): assets no export has used for
//     that long and segments nobody joined go by themselves. The coordinator puts an object
//     again once it is half that old, so nothing an export uses expires under it.
//   - The API nodes' files (--blob-store nats) live in a second object store, FilesName
//     ("cutroom-files"): named by their path under the data dir, without a TTL, created
//     with the replicas asked for unless it exists (an operator's configuration is kept).
//     FileObjects is it for package blob (blob.Objects), which keeps the nodes' local
//     copies. The server's connection serves both (the App joins NATS before it opens the
//     asset store). A clustered export still ships its assets to workers by content through
//     "cutroom-objects", so with both an asset is stored twice in NATS; the copies of the
//     segments' objects expire.
//   - Workers keep the assets they fetched in a directory of files named by their hash,
//     bounded in bytes with least-recently-used eviction (Cache, over blob.Copies, the
//     account of the API nodes' local copies too); a file in use is never evicted.
package cluster
