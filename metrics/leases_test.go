package metrics_test

import (
	"net/http/httptest"
	"testing"

	"github.com/cutroom/cutroom/metrics"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// The lease counters count what export and webhook report, and the leases held are read
// from their source at scrape time.
func TestLeaseMetrics(t *testing.T) {
	m := metrics.New(metrics.Sources{LeasesHeld: func() int { return 3 }}, nil)
	m.LeaseLost()
	m.LeaseTakenOver()
	m.LeaseTakenOver()
	m.WebhookClaimExpired()
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(rec.Body)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]float64{"cutroom_export_leases_lost_total": 1, "cutroom_export_leases_taken_over_total": 2,
		"cutroom_webhook_claims_expired_total": 1} {
		if got := fams[name].GetMetric()[0].GetCounter().GetValue(); got != want {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	if got := fams["cutroom_export_leases_held"].GetMetric()[0].GetGauge().GetValue(); got != 3 {
		t.Errorf("leases held %v, want 3", got)
	}
}
