// Package webhook signs and delivers export webhooks from a durable outbox, through an outbound-address guard.
//
// Every attempt is recorded on its entry (model.WebhookAttempt: time, the receiver's status
// code, the error), so GET /v1/exports/{taskId}/webhooks can list them: a failed attempt with
// the entry (WebhookFailed, GaveUp after the last retry), a delivered one moves the entry out
// of the outbox into the delivered records (Store.WebhookSucceeded).
package webhook
