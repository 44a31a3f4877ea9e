package webhook

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cutroom/cutroom/model"
)

// Sign returns the lowercase hex HMAC-SHA256 of "<timestamp>.<body>" keyed with secret,
// the value of the signature header.
func Sign(secret string, timestamp int64, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(strconv.FormatInt(timestamp, 10)))
	m.Write([]byte{'.'})
	m.Write(body)
	return hex.EncodeToString(m.Sum(nil))
}

// Verify reports whether signature is the signature of body at timestamp under secret.
func Verify(secret string, timestamp int64, body []byte, signature string) bool {
	want := Sign(secret, timestamp, body)
	return hmac.Equal([]byte(want), []byte(strings.ToLower(signature)))
}

// DefaultSchedule is the wait before each retry of a failed delivery: after the first
// attempt fails the next comes 5 s later, and so on; after the last retry fails the
// delivery is given up (moved to the dead letters).
var DefaultSchedule = []time.Duration{5 * time.Second, 5 * time.Minute, 30 * time.Minute,
	2 * time.Hour, 5 * time.Hour, 10 * time.Hour, 10 * time.Hour}

// DefaultHeaderPrefix starts the names of the timestamp, signature and event id headers.
const DefaultHeaderPrefix = "X-Service"

// Store is the outbox the deliverer drains; *storage.DB implements it. WebhookSucceeded and
// WebhookFailed write only while the node that made the attempt holds the entry's claim.
type Store interface {
	PendingWebhooks() ([]model.WebhookDelivery, error)
	WebhookSucceeded(d model.WebhookDelivery) error
	WebhookFailed(d model.WebhookDelivery, dead bool) error
	Workspace(ref string) (model.Workspace, error)
	// ClaimWebhook claims a due entry for node for ttl (claims.go).
	ClaimWebhook(seq uint64, node string, now time.Time, ttl time.Duration) (claimed *model.WebhookDelivery, abandoned string, err error)
	// ReleaseWebhook drops node's claim on an entry, counting no attempt.
	ReleaseWebhook(seq uint64, node string) error
	// ReleaseWebhookClaims drops every claim, counting no attempt.
	ReleaseWebhookClaims() error
}

// Config configures a Deliverer. Zero values take the documented defaults.
type Config struct {
	// HeaderPrefix names the headers <prefix>-Timestamp, <prefix>-Signature and
	// <prefix>-Event-Id (default X-Service).
	HeaderPrefix string
	// Schedule is the wait before each retry (default DefaultSchedule).
	Schedule []time.Duration
	// Jitter spreads each wait by up to this fraction either way (default 0.1; negative
	// disables it).
	Jitter float64
	// MaxRetryAfter caps how long a receiver's Retry-After may postpone a retry (default 24 h).
	MaxRetryAfter time.Duration
	// Timeout bounds one delivery attempt (default 15 s).
	Timeout time.Duration
	// Concurrency is how many deliveries run at once (default 4).
	Concurrency int
	// PerDestination is how many of them may go to one destination (scheme, host and port
	// of the URL) at once (default half of Concurrency, at least 1), so that a receiver
	// that hangs until the timeout holds up only its own deliveries.
	PerDestination int
	// Client sends the requests; by default Guard's client (no redirects, Timeout).
	Client *http.Client
	// Guard checks destinations at dial time when Client is nil; nil allows only public
	// addresses.
	Guard *Guard
	// Now returns the current time; time.Now when nil.
	Now func() time.Time
	// Logger receives delivery logs (with the event and task ids, never a payload, header
	// or secret); slog.Default() when nil.
	Logger *slog.Logger
	// Metrics counts the delivery attempts; nil counts nothing.
	Metrics Metrics
	// NodeID names this node in its claims on outbox entries (default model.NewNodeID()).
	NodeID string
	// ClaimGrace is how long a claim outlasts its attempt's Timeout (default
	// DefaultClaimGrace): a node that stopped during an attempt holds the entry until then,
	// and another node makes the next attempt after it (claims.go).
	ClaimGrace time.Duration
	// Poll is how long the deliverer waits at most before it reads the outbox again when
	// nothing wakes it (default DefaultPoll).
	Poll time.Duration
}

// DefaultPoll is how often the deliverer reads the outbox when nothing wakes it
// (Config.Poll).
const DefaultPoll = 10 * time.Second

// Metrics counts delivery attempts; *metrics.Metrics implements it.
type Metrics interface {
	// WebhookAttempt counts one attempt that ended: outcome is OutcomeDelivered,
	// OutcomeFailed (retried later) or OutcomeGaveUp; attempt counts from 1 and is at most
	// len(Config.Schedule)+1.
	WebhookAttempt(outcome string, attempt int)
	// WebhookClaimExpired counts an attempt another node abandoned (its claim expired with
	// no outcome recorded), which this node counted.
	WebhookClaimExpired()
}

// Outcomes of a delivery attempt (Metrics).
const (
	OutcomeDelivered = "delivered"
	OutcomeFailed    = "failed"
	OutcomeGaveUp    = "gave_up"
)

// noMetrics counts nothing.
type noMetrics struct{}

func (noMetrics) WebhookAttempt(string, int) {}
func (noMetrics) WebhookClaimExpired()       {}

// Deliverer sends the outbox's webhook deliveries at least once, in order per task, with
// retries on the schedule. Run it once; Notify wakes it when entries were added.
type Deliverer struct {
	cfg    Config
	store  Store
	client *http.Client
	log    *slog.Logger
	wake   chan struct{}
	// crashOnStop makes Run's end leave the claims of aborted attempts held, as a process
	// that died would (tests)
	crashOnStop atomic.Bool

	mu       sync.Mutex
	inFlight map[string]bool // task ids with a delivery in progress
	toDest   map[string]int  // deliveries in progress per destination (see destination)
	// finished counts attempts that have ended; an outbox read before one ended may
	// still show that attempt's delivery as due
	finished uint64
}

// NewDeliverer returns a deliverer over store.
func NewDeliverer(cfg Config, store Store) *Deliverer {
	if cfg.HeaderPrefix == "" {
		cfg.HeaderPrefix = DefaultHeaderPrefix
	}
	if cfg.Schedule == nil {
		cfg.Schedule = DefaultSchedule
	}
	if cfg.Jitter == 0 {
		cfg.Jitter = 0.1
	}
	if cfg.MaxRetryAfter <= 0 {
		cfg.MaxRetryAfter = 24 * time.Hour
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 15 * time.Second
	}
	if cfg.Concurrency <= 0 {
		cfg.Concurrency = 4
	}
	if cfg.PerDestination <= 0 {
		cfg.PerDestination = max(1, cfg.Concurrency/2)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Metrics == nil {
		cfg.Metrics = noMetrics{}
	}
	if cfg.NodeID == "" {
		cfg.NodeID = model.NewNodeID()
	}
	if cfg.ClaimGrace <= 0 {
		cfg.ClaimGrace = DefaultClaimGrace
	}
	if cfg.Poll <= 0 {
		cfg.Poll = DefaultPoll
	}
	if cfg.Guard == nil {
		cfg.Guard = &Guard{hosts: map[string]bool{}}
	}
	client := cfg.Client
	if client == nil {
		client = cfg.Guard.Client(cfg.Timeout)
	}
	return &Deliverer{cfg: cfg, store: store, client: client, log: cfg.Logger,
		wake: make(chan struct{}, 1), inFlight: map[string]bool{}, toDest: map[string]int{}}
}

// Notify wakes the deliverer to look at the outbox. It never blocks.
func (d *Deliverer) Notify() {
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

// Run delivers until ctx ends, then waits for deliveries in progress (which ctx aborts;
// an aborted attempt is not counted: its claim is released, and it runs again on the next
// start or on another node at once). On a store of this process's alone it first drops
// every claim (those of an earlier run, whose attempts were aborted or cut by a crash). It
// reads the outbox when woken (Notify; on a shared store also at every node's commit: see
// commits) and at the latest every Config.Poll.
func (d *Deliverer) Run(ctx context.Context) error {
	if !shared(d.store) {
		if err := d.store.ReleaseWebhookClaims(); err != nil {
			return fmt.Errorf("webhook: release the outbox's claims: %w", err)
		}
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	sem := make(chan struct{}, d.cfg.Concurrency)
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	commits := d.commits(ctx)
	for {
		wait := d.dispatch(ctx, &wg, sem)
		if !timer.Stop() {
			select {
			case <-timer.C:
			default:
			}
		}
		timer.Reset(wait)
		select {
		case <-ctx.Done():
			return nil
		case <-d.wake:
		case _, ok := <-commits:
			if !ok {
				commits = nil
			}
		case <-timer.C:
		}
	}
}

// dispatch starts every due delivery that is first in its task's order and returns how
// long to wait before the next one is due.
func (d *Deliverer) dispatch(ctx context.Context, wg *sync.WaitGroup, sem chan struct{}) time.Duration {
	d.mu.Lock()
	epoch := d.finished
	d.mu.Unlock()
	pending, err := d.store.PendingWebhooks()
	if err != nil {
		d.log.Error("webhook outbox", "err", err)
		return 5 * time.Second
	}
	now := d.cfg.Now()
	// Look again within this even unwoken, in case an entry was added without Notify.
	wait := d.cfg.Poll
	seen := map[string]bool{}
	for _, p := range pending {
		if seen[p.TaskID] { // an earlier event of this task is still pending
			continue
		}
		seen[p.TaskID] = true
		dest := destination(p.URL)
		d.mu.Lock()
		busy, stale := d.inFlight[p.TaskID], d.finished != epoch
		full := d.toDest[dest] >= d.cfg.PerDestination
		d.mu.Unlock()
		if busy {
			continue
		}
		if stale {
			// an attempt ended after the outbox was read: p may be the delivery it just
			// recorded (failed, with a later retry time); read the outbox again now
			return 0
		}
		if due := p.NextAttemptAt.Sub(now); due > 0 {
			wait = min(wait, due)
			continue
		}
		if held := d.claimedElsewhere(p, now); held > 0 {
			wait = min(wait, held)
			continue
		}
		if full {
			continue // an attempt to the same destination ending wakes the dispatcher
		}
		select {
		case sem <- struct{}{}:
		default:
			return min(wait, 50*time.Millisecond) // all workers busy: look again soon
		}
		d.mu.Lock()
		d.inFlight[p.TaskID] = true
		d.toDest[dest]++
		d.mu.Unlock()
		wg.Add(1)
		go func(p model.WebhookDelivery) {
			defer wg.Done()
			defer func() { <-sem }()
			d.attempt(ctx, p)
			d.mu.Lock()
			delete(d.inFlight, p.TaskID)
			if d.toDest[dest]--; d.toDest[dest] == 0 {
				delete(d.toDest, dest)
			}
			d.finished++
			d.mu.Unlock()
			d.Notify()
		}(p)
	}
	return wait
}

// destination is what PerDestination counts: the URL's scheme and host (with the port),
// case-folded; the whole URL when it does not parse (such a delivery fails anyway).
func destination(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return raw
	}
	return strings.ToLower(u.Scheme + "://" + u.Host)
}

// attempt claims an entry, makes one delivery attempt and records its outcome.
func (d *Deliverer) attempt(ctx context.Context, p model.WebhookDelivery) {
	p, ok := d.claim(p)
	if !ok {
		return
	}
	at := d.cfg.Now().UTC()
	status, retryAfter, err := d.send(ctx, p)
	if ctx.Err() != nil {
		d.release(p) // shutting down: the attempt does not count
		return
	}
	rec := model.WebhookAttempt{At: at, StatusCode: status}
	if err != nil {
		rec.Error = err.Error()
	}
	p.History = append(p.History, rec)
	if err == nil {
		p.DeliveredAt = &at
		if err := d.store.WebhookSucceeded(p); err != nil {
			d.log.Error("webhook delivered but not recorded (the claim expired during the attempt?); it will be sent again", "event", p.EventID, "err", err)
		}
		d.cfg.Metrics.WebhookAttempt(OutcomeDelivered, p.Attempts+1)
		d.log.Info("webhook delivered", "event", p.EventID, "type", p.EventType, "task", p.TaskID, "attempt", p.Attempts+1)
		return
	}
	p.Attempts++
	p.LastError = err.Error()
	dead := p.Attempts > len(d.cfg.Schedule)
	p.GaveUp = dead
	if !dead {
		wait := d.cfg.Schedule[p.Attempts-1]
		if d.cfg.Jitter > 0 {
			wait += time.Duration((rand.Float64()*2 - 1) * d.cfg.Jitter * float64(wait))
		}
		if retryAfter > wait {
			wait = min(retryAfter, d.cfg.MaxRetryAfter)
		}
		p.NextAttemptAt = d.cfg.Now().Add(wait)
	}
	level, outcome := slog.LevelWarn, OutcomeFailed
	if dead {
		level, outcome = slog.LevelError, OutcomeGaveUp
	}
	d.cfg.Metrics.WebhookAttempt(outcome, p.Attempts)
	d.log.Log(ctx, level, "webhook delivery failed", "event", p.EventID, "type", p.EventType, "task", p.TaskID,
		"attempt", p.Attempts, "err", err, "gaveUp", dead, "next", p.NextAttemptAt)
	if err := d.store.WebhookFailed(p, dead); err != nil {
		d.log.Error("record webhook failure (the claim expired during the attempt?)", "event", p.EventID, "err", err)
	}
}

// send posts one delivery; it returns the receiver's status code (0 without an answer), its
// Retry-After (0 when none) and an error unless the receiver answered 2xx.
func (d *Deliverer) send(ctx context.Context, p model.WebhookDelivery) (int, time.Duration, error) {
	ws, err := d.store.Workspace(p.WorkspaceID)
	if err != nil {
		return 0, 0, fmt.Errorf("workspace: %w", err)
	}
	if ws.WebhookSecret == "" {
		return 0, 0, fmt.Errorf("the workspace has no webhook secret configured")
	}
	rctx, cancel := context.WithTimeout(ctx, d.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(rctx, http.MethodPost, p.URL, bytes.NewReader(p.Body))
	if err != nil {
		return 0, 0, err
	}
	for k, v := range p.Headers {
		req.Header.Set(k, v)
	}
	ts := d.cfg.Now().Unix()
	pre := d.cfg.HeaderPrefix
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "cutroom-webhook/1")
	req.Header.Set(pre+"-Timestamp", strconv.FormatInt(ts, 10))
	req.Header.Set(pre+"-Signature", Sign(ws.WebhookSecret, ts, p.Body))
	req.Header.Set(pre+"-Event-Id", p.EventID)
	req.Header.Set(pre+"-Event-Type", p.EventType)
	resp, err := d.client.Do(req)
	if err != nil {
		return 0, 0, err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return resp.StatusCode, 0, nil
	}
	return resp.StatusCode, parseRetryAfter(resp.Header.Get("Retry-After"), d.cfg.Now()), fmt.Errorf("receiver answered %s", resp.Status)
}

// parseRetryAfter reads a Retry-After value in seconds or as an HTTP date.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if n, err := strconv.Atoi(v); err == nil && n >= 0 {
		return time.Duration(n) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// ReservedHeader reports whether a caller may not set header name on callbacks: hop-by-hop
// headers, Host, Content-Length, Content-Type and the signature headers.
func ReservedHeader(prefix, name string) bool {
	n := http.CanonicalHeaderKey(strings.TrimSpace(name))
	switch n {
	case "Host", "Connection", "Keep-Alive", "Proxy-Connection", "Proxy-Authenticate", "Proxy-Authorization",
		"Te", "Trailer", "Transfer-Encoding", "Upgrade", "Content-Length", "Content-Type", "Content-Encoding",
		"Expect", "User-Agent":
		return true
	}
	if prefix == "" {
		prefix = DefaultHeaderPrefix
	}
	return strings.HasPrefix(strings.ToLower(n), strings.ToLower(prefix)+"-")
}
