package metrics_test

import (
	"bytes"
	"errors"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/cutroom/cutroom/metrics"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// A source that fails leaves out only its own metrics: the scrape still answers 200 with
// the rest, and the failure is logged. Methods outside the standard set are one label.
func TestFailingSourceLeavesTheRest(t *testing.T) {
	var logs bytes.Buffer
	m := metrics.New(metrics.Sources{
		ActiveExports: func() (map[metrics.StatusPhase]int, error) { return nil, errors.New("database not open") },
		ActiveRenders: func() int { return 2 },
		StoredAssets: func() (map[string]metrics.Usage, error) {
			return map[string]metrics.Usage{"video": {Files: 3, Bytes: 300}}, nil
		},
		DiskSpace: func() (uint64, uint64, error) { return 100, 1000, nil },
	}, slog.New(slog.NewTextHandler(&logs, nil)))
	m.ObserveRequest("BREW", "", 404, 0)
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if rec.Code != 200 {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(rec.Body)
	if err != nil {
		t.Fatal(err)
	}
	if fams["cutroom_exports"] != nil || fams["cutroom_export_queue_length"] != nil {
		t.Fatal("the failed source's metrics were served")
	}
	for name, want := range map[string]float64{"cutroom_export_renders_active": 2, "cutroom_assets_stored_bytes": 300,
		"cutroom_assets_stored_files": 3} {
		f := fams[name]
		if f == nil || f.Metric[0].GetGauge().GetValue() != want {
			t.Fatalf("%s: %v, want %v", name, f, want)
		}
	}
	if fams["cutroom_data_dir_free_bytes"].GetMetric()[0].GetGauge().GetValue() <= 0 {
		t.Fatal("no free disk")
	}
	labels := fams["cutroom_http_requests_total"].GetMetric()[0].GetLabel()
	got := map[string]string{}
	for _, l := range labels {
		got[l.GetName()] = l.GetValue()
	}
	if got["method"] != "OTHER" || got["route"] != metrics.Unmatched || got["status"] != "404" {
		t.Fatalf("labels %v", got)
	}
	if !strings.Contains(logs.String(), "database not open") {
		t.Fatalf("the failure was not logged: %s", logs.String())
	}
}

// The cluster's queue gauges are served from their source, and only when there is one (a
// server without a cluster has none).
func TestClusterQueueGauges(t *testing.T) {
	scrape := func(src metrics.Sources) map[string]float64 {
		t.Helper()
		rec := httptest.NewRecorder()
		metrics.New(src, nil).Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
		p := expfmt.NewTextParser(model.UTF8Validation)
		fams, err := p.TextToMetricFamilies(rec.Body)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]float64{}
		for _, name := range []string{"cutroom_cluster_segments_queued", "cutroom_cluster_segments_rendering", "cutroom_cluster_worker_slots_idle"} {
			if f := fams[name]; f != nil {
				out[name] = f.GetMetric()[0].GetGauge().GetValue()
			}
		}
		return out
	}
	got := scrape(metrics.Sources{ClusterQueue: func() (metrics.ClusterQueue, error) {
		return metrics.ClusterQueue{Queued: 3, Rendering: 2, Idle: 1}, nil
	}})
	want := map[string]float64{"cutroom_cluster_segments_queued": 3, "cutroom_cluster_segments_rendering": 2, "cutroom_cluster_worker_slots_idle": 1}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %v, want %v (all: %v)", k, got[k], v, got)
		}
	}
	if got := scrape(metrics.Sources{}); len(got) != 0 {
		t.Errorf("without a cluster: %v", got)
	}
}

// The Lottie renderer counts are served from their source: started and failed (by reason)
// as counters, running as a gauge.
func TestLottieRendererMetrics(t *testing.T) {
	rec := httptest.NewRecorder()
	metrics.New(metrics.Sources{LottieRenderers: func() metrics.LottieRenderers {
		return metrics.LottieRenderers{Started: 7, Running: 2, Failed: map[string]uint64{"memory": 1, "killed": 3}}
	}}, nil).Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(rec.Body)
	if err != nil {
		t.Fatal(err)
	}
	if v := fams["cutroom_lottie_renderers_started_total"].GetMetric()[0].GetCounter().GetValue(); v != 7 {
		t.Errorf("started %v, want 7", v)
	}
	if v := fams["cutroom_lottie_renderers_running"].GetMetric()[0].GetGauge().GetValue(); v != 2 {
		t.Errorf("running %v, want 2", v)
	}
	failed := map[string]float64{}
	for _, m := range fams["cutroom_lottie_renderers_crashed_total"].GetMetric() {
		failed[m.GetLabel()[0].GetValue()] = m.GetCounter().GetValue()
	}
	if len(failed) != 2 || failed["memory"] != 1 || failed["killed"] != 3 {
		t.Errorf("crashed by reason %v, want memory 1, killed 3", failed)
	}
}
