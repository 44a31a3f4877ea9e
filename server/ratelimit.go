package server

import (
	"math"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// syncLimiter is a token bucket per project for the sync route.
type syncLimiter struct {
	mu      sync.Mutex
	rate    rate.Limit
	burst   int
	now     func() time.Time
	buckets map[string]*bucketEntry
	calls   int
}

type bucketEntry struct {
	lim  *rate.Limiter
	seen time.Time
}

func newSyncLimiter(perSecond float64, burst int, now func() time.Time) *syncLimiter {
	return &syncLimiter{rate: rate.Limit(perSecond), burst: burst, now: now, buckets: map[string]*bucketEntry{}}
}

// allow takes a token for key, or returns how long until one is available.
func (l *syncLimiter) allow(key string) (bool, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	l.calls++
	if l.calls%1024 == 0 {
		l.sweep(now)
	}
	e := l.buckets[key]
	if e == nil {
		e = &bucketEntry{lim: rate.NewLimiter(l.rate, l.burst)}
		l.buckets[key] = e
	}
	e.seen = now
	if e.lim.AllowN(now, 1) {
		return true, 0
	}
	r := e.lim.ReserveN(now, 1)
	wait := r.DelayFrom(now)
	r.CancelAt(now)
	return false, wait
}

// sweep forgets buckets that have refilled completely, so memory tracks active projects.
func (l *syncLimiter) sweep(now time.Time) {
	full := time.Duration(float64(l.burst)/float64(l.rate)*float64(time.Second)) + time.Second
	for k, e := range l.buckets {
		if now.Sub(e.seen) > full {
			delete(l.buckets, k)
		}
	}
}

// newRateLimited is the sync route's 429 for a token that is wait away; Retry-After is the
// wait in whole seconds, at least 1.
func newRateLimited(wait time.Duration) error {
	secs := int(math.Max(1, math.Ceil(wait.Seconds())))
	return errSyncRateLimited.New("this project is synced too often; retry after %d s and back off", secs).WithRetryAfter(secs)
}
