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
package webhook
