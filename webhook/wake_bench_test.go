package webhook_test

import (
	"math/rand/v2"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/cutroom/cutroom/internal/pgtest"
	"github.com/cutroom/cutroom/internal/teststore"
	"github.com/cutroom/cutroom/webhook"
)

// BenchmarkCrossNodeLatency measures, on PostgreSQL, the time from the start of an enqueue
// on one node (the task's creation and the update that adds its delivery, two commits) to
// the receiver getting the request from the deliverer of another node, which runs with the
// default poll. Each enqueue comes after a pause uniform in [0, DefaultPoll), so that it
// falls anywhere in the poll's period, as another node's does. It reports the median and
// the slowest; run it with -benchtime=20x.
func BenchmarkCrossNodeLatency(b *testing.B) {
	url := pgtest.URL(b)
	o := outboxOn(b, teststore.PostgresNode(b, url))
	ep := &endpoint{}
	srv := httptest.NewServer(ep)
	defer srv.Close()
	startNode(b, teststore.PostgresNode(b, url), "node-b", nil)
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		time.Sleep(rand.N(webhook.DefaultPoll))
		start := time.Now()
		o.enqueue(b, srv.URL, "EXPORT_COMPLETED")
		waitFor(b, 2*webhook.DefaultPoll, func() bool { return len(ep.snapshot()) == i+1 })
		lat = append(lat, ep.snapshot()[i].at.Sub(start))
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "ms-median")
	b.ReportMetric(float64(lat[len(lat)-1].Microseconds())/1000, "ms-max")
}
