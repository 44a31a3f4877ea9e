// Package export runs export tasks: creating them (validation, limits, credits), the
// scheduler that owns renders, cancel, pause and resume, signed output links, and the
// webhook events of each task. The frame pipeline itself (state -> compositor -> encoder
// -> file) sits behind the Renderer interface; package render implements it and serve wires
// it in. export imports neither the compositor nor the encoder (deps_test.go checks it).
//
// Decisions (the interface leaves them open):
//
//   - Errors: a refusal of an operation is an *apierr.Error; each code is defined with its
//     kind next to the rule that raises it (request.go, create.go, service.go, limits.go),
//     so the server answers its status without a table. An invalid editor state is refused
//     with the first validation issue's EDITOR_ code (issuecodes.go). A FAILED task's error
//     is not an API answer: TaskError (failure.go) writes "<CODE>: <message>" from the render's
//     *RenderFailure (or from the apierr error of a create rule the stored task breaks), else
//     "render failed: <message>"; the Renderer defines its codes (package render).
//   - Task ids are lower-case UUIDs. An id this server never issued is TASK_NOT_FOUND, as is
//     another workspace's task.
//   - Create answers 201 for a new task. With an Idempotency-Key, a repeat replays the first
//     response byte for byte (the task, its idempotency record and the credit debit commit in
//     one bbolt transaction). The record keeps the create result's JSON, which Create fills
//     in; the server owns the envelope around it, on the first answer and on a replay alike,
//     so export never sees HTTP bytes. Without the key, a clientTaskId the workspace used before returns
//     that task's create result (Created.New false) and creates nothing, whatever the rest of
//     the body; the server answers it as the first answer was, 201 (the interface declares
//     no other success status), with Idempotent-Replayed: true.
//   - An invalid editor state gets the first validation issue's code (EDITOR_..., as from
//     POST /v1/editor/validate), `field` editorState plus the JSON pointer, and every
//     issue in the problem's `errors` member.
//   - compositionWidth/Height of a stateless create override the state's; ratio (unless
//     custom) must match that composition within 1% (RATIO_MISMATCH). The output size is the
//     composition x scale, each side rounded to an even number; its longest side is capped by
//     Config.MaxOutputSide (DefaultMaxOutputSide, OUTPUT_SIZE_TOO_LARGE) and by the workspace's
//     entitlement (OUTPUT_SIZE_NOT_ENTITLED). 60 fps needs the workspace's 60 fps
//     entitlement (ENTITLEMENT_60FPS_REQUIRED). A state with no items is EXPORT_STATE_EMPTY.
//   - Length: the video lasts until the end of the last item in a track,
//     ceil(duration x fps) frames. Longer than Config.MaxDuration (default 4 h) or MaxFrames
//     is EXPORT_TOO_LONG (see CheckLength), refused before anything is charged or stored.
//   - Billing: see Billed. billedStandardSeconds = ceil(video seconds x factor), at least 1,
//     factor = max(0.25, outW*outH / (1920*1080)) x fps/30. chargedCredits is 1 credit per
//     billed standard second, always a whole number as a decimal string ("12").
//     chargedCreditPool is "workspace" when the workspace has a credit balance (it was
//     debited) or "unlimited" when it has none (the default; nothing was debited).
//     Credits are debited at create in the task's transaction (INSUFFICIENT_CREDITS when the
//     balance is short) and refunded when the task ends FAILED or CANCELED: the caller pays
//     only for delivered outputs. A refunded task shows chargedCredits "0".
//   - durationSeconds: in the create result, the video's length; on the task, the real
//     render time (0 until a render has run; the last attempt's time after a resume).
//   - Progress: 0..95 while rendering, by frames, written at most every ProgressInterval and
//     only when the whole percentage rises; 96 in phase saving (the encoder finishes the
//     file); 99 in phase finishing (the output is checked); 100 when COMPLETED.
//   - Outputs live in OutputDir/<taskId>/<taskId>.<format>. The Renderer writes that file
//     itself, atomically (temp file in the same directory, fsync, rename); a task becomes
//     COMPLETED only after Render returned and the file exists, so a partial file is never
//     served. On cancel, pause or failure the task's directory is removed. With an object
//     store (Config.Blobs, --blob-store nats; package blob) the file is put there before
//     the task becomes COMPLETED (a failed put fails the task with BLOB_STORE_UNAVAILABLE),
//     a download on a node without a copy fetches it, and expiry deletes the object too.
//   - outputUrl is {publicURL}/outputs/<taskId>/<filename>?exp=<unix>&sig=<hex HMAC-SHA256
//     of the path and expiry>, keyed with a secret kept in the database; it works for
//     OutputTTL (default 72 h), after which it answers 410 OUTPUT_EXPIRED, the janitor
//     deletes the file and the task shows outputUrl null.
//   - Shutdown (Run's ctx ends) cancels renders with a "paused" cause: their tasks become
//     PAUSED and their files are removed. On the next Run, PAUSED and PROCESSING (left by a
//     crash) tasks go back to PENDING and render again from the start. On a shared store
//     (several nodes, see below) a shutdown records its tasks PENDING instead, so another
//     node resumes them at once.
//   - Leases (leases.go): several nodes may run the scheduler over one shared store
//     (storage on PostgreSQL). A node claims a task (PENDING -> PROCESSING) with its lease,
//     Config.NodeID and an expiry LeaseTTL ahead, in the claim's own transaction (UpdateExport),
//     so two nodes never both start it. A heartbeat every LeaseTTL/3 renews all of the
//     node's leases in one write (storage.RenewLeases) and reports those lost; the store's
//     commit signal (Subscribe, when it has one; at most once per wake.CommitGap, 200 ms,
//     the first at once) makes the node check its tasks, in
//     one read (storage.ExportTasksByID; on PostgreSQL a constant number of round trips, as
//     the heartbeat and the poll's read of the active tasks cost, however many tasks). A
//     lease lost to a cancel (or a task gone) stops the render as a cancel; one lost to
//     another node (ours expired and was taken) stops it with a cause Paused reports, so a
//     renderer keeps its outside work (cluster segments) for the other node, and writes
//     nothing: progress, outcome and pause are written only while the task is PROCESSING
//     under this node's lease (mine). At start and at every poll a node requeues PAUSED
//     tasks and PROCESSING ones whose lease expired (not its own running ones): an expired
//     lease is a crash, counted as a crash at start always was (Crashes, MaxCrashes,
//     EXPORT_RENDER_CRASHED with its event and refund), and the takeover is logged with both
//     node ids and counted (Metrics.LeaseTakenOver). A store of this process's alone
//     (bbolt: no Shared) keeps the start as it was: every PROCESSING task is this process's
//     crash, whatever its lease. Lease expiry compares the clocks of nodes: they must agree
//     to well within LeaseTTL. Why leases in the task record and not FOR UPDATE SKIP LOCKED
//     with a held transaction: a render lasts minutes to hours, and a transaction (or a
//     connection) held that long would pin PostgreSQL's vacuum and die with any network
//     blip; a record with an expiry survives both and works on bbolt too. Its cost is one
//     write per LeaseTTL/3 per node with renders: renewing 4 leases took 2.7 ms on bbolt
//     (fsync) and 0.4 ms on PostgreSQL over loopback (fsync off), medians of 5 runs of
//     storage's BenchmarkLeases at load average 8 on 2 cores.
//   - Webhooks: EXPORT_STARTED when a worker claims the task and starts its render, then
//     EXPORT_COMPLETED or EXPORT_FAILED; the body's task is the TaskView at that moment
//     (exactly what GET shows then). Events are outbox entries written in the same
//     transaction as the status change; package webhook delivers them. Cancel sends none.
//   - A full disk: Create refuses a new task with 507 STORAGE_FULL while Config.Space says
//     the filesystem is below its floor (after the state's and workspace's rules, before
//     anything is charged), and a task commit that fails for lack of space is STORAGE_FULL
//     too (storeError); tasks already accepted keep rendering, and expired outputs are
//     still deleted.
//   - Events (events.go, tail.go): every committed change of a task is recorded in the
//     database's task change log in the task's own transaction (storage.TaskChanges), and
//     each Service follows that log into its in-memory EventLog (a ring of
//     Config.EventBuffer changes, DefaultEventBuffer) as the TaskView after the change, so a
//     stream on any node over the database sees every node's changes (issue 32). The log,
//     not the process, numbers the changes: ids are "<database epoch>-<sequence>", so
//     Last-Event-ID resumes on any node and after a restart (a new Service loads the newest
//     EventBuffer changes); an id of another database or older than the ring resyncs from
//     Recent. The log is followed after each of this Service's commits (a change is
//     published before the call that made it returns), at every commit of another node on
//     a shared database (storage's Subscribe) and every Config.EventPoll (DefaultEventPoll,
//     a fallback); on a database of its own (bbolt) every commit is this Service's, so it
//     does not wake at commits. Readers never block the scheduler: they read the ring from
//     the last sequence they saw and resync from Recent when they fell behind it. Run trims
//     the log to EventBuffer once it holds a quarter more. The TaskView a node builds from a
//     change equals what GET showed on the node that made it: outputUrl is signed with the
//     database's secret, and only an expiry passed since hides it. Cost on bbolt
//     (BenchmarkTaskUpdate, one progress write with its publish; progress is written every
//     ProgressInterval per rendering task), medians of 7 runs of 3,000 writes alternating
//     with the revision before the log, load average 8-10 on 2 cores: 100.6 µs user and
//     104.9 µs system CPU per write against 49.8 and 80.4 (wall 463 µs against 303, fsync
//     included). The extra 76 µs (the change stored, read back and decoded) is 0.015% of a
//     core per rendering task at two writes a second.
package export
