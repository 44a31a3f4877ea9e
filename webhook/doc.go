// Package webhook signs and delivers export webhooks from a durable outbox, through an outbound-address guard.
//
// Every attempt is recorded on its entry (model.WebhookAttempt: time, the receiver's status
// code, the error), so GET /v1/exports/{taskId}/webhooks can list them: a failed attempt with
// the entry (WebhookFailed, GaveUp after the last retry), a delivered one moves the entry out
// of the outbox into the delivered records (Store.WebhookSucceeded).
//
// Claims (claims.go): several nodes may drain one outbox (storage on PostgreSQL). Before an
// attempt a deliverer claims the entry, its Config.NodeID and an expiry of the attempt's
// Timeout plus ClaimGrace, in one transaction that succeeds only when the entry is due and no
// other node's claim holds it (Store.ClaimWebhook); the dispatcher skips entries another
// node holds, and a task's later events wait behind them as behind any attempt. Only the
// claim's holder records the outcome: WebhookSucceeded and WebhookFailed write nothing for a
// claim that expired and was taken. A node that dies during an attempt keeps its claim until
// it expires; the next claim counts that attempt (its history says no outcome was recorded;
// the receiver may have had it: delivery is at least once) and gives the entry up if it was
// the last of the schedule. A shutdown aborts attempts uncounted and releases their claims.
// A store of this process's alone (bbolt: no Shared) drops every claim at start, so an
// aborted or crashed attempt runs again at once and uncounted, as before claims. Entries are
// claimed one attempt at a time, not leased while a node lives: an attempt is bounded by
// Timeout, so a claim needs no heartbeat. The claim is one more write per attempt: a claim
// and a release took 4.7 ms on bbolt (fsync) and 0.3 ms on PostgreSQL over loopback (fsync
// off), medians of 5 runs of storage's BenchmarkLeases at load average 8 on 2 cores.
//
// Waking (Deliverer.Run): the deliverer reads the outbox when Notify wakes it (this node's
// enqueues, the end of each of its attempts), when the next retry or another node's claim
// falls due, and at the latest every Config.Poll (10 s). On a shared store it also reads it
// at every commit of any node (storage's Subscribe: LISTEN/NOTIFY on PostgreSQL), for what
// no Notify tells it: a delivery another node enqueued (a task that ended there), a retry
// time another node recorded, a claim another node took (whose expiry it then waits for,
// should that node die). Its own commits (a claim, an outcome) wake it once each, as
// storage signals a DB's own commit once. Any node's render progress commits wake it too:
// each wake is one read of the outbox, which holds the undelivered entries only (retries
// waiting included), wakes that come while it reads coalesce into one, and commits wake
// it at most once per wake.CommitGap (200 ms; a Notify still reads at once): a storm of
// commits from another handle for 2 s read the outbox 6,913-7,432 times without the gap
// and 10 times with it (TestCommitStormReadsTheOutboxBounded, bbolt and PostgreSQL). A store of
// this process's alone is not followed: every enqueue there comes with a Notify. From the
// start of an enqueue on one node to the receiver getting the request from another node's
// deliverer (BenchmarkCrossNodeLatency, PostgreSQL over loopback, 20 enqueues each after a
// pause uniform in [0, 10 s)): median 6.6 s (max 9.8 s) when the deliverer only polled;
// with the commit signal 4.7 ms (max 254 ms) and, in a second run, 9.4 ms (max 223 ms).
// Load average 7-9 (5-6 for the second) on 2 cores; 4.5, 1.5 and 1.0 CPU seconds for the
// runs of 214 s, 105 s and 95 s, the test binary and its PostgreSQL.
package webhook
