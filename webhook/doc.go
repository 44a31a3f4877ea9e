// Package webhook signs and delivers export webhooks from a durable outbox, through an outbound-address guard.
package webhook
