package metrics

import (
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Namespace starts the name of every metric of cutroom's own.
const Namespace = "cutroom"

// Unmatched is the route label of requests no route matched.
const Unmatched = "unmatched"

// Metrics is one App's registry and its metrics. Its zero value is not usable; use New.
type Metrics struct {
	reg *prometheus.Registry
	log *slog.Logger

	httpRequests *prometheus.CounterVec
	httpDuration *prometheus.HistogramVec

	exportsCreated  prometheus.Counter
	exportsFinished *prometheus.CounterVec
	renderSeconds   *prometheus.HistogramVec
	outputBytes     prometheus.Counter
	frames          prometheus.Counter
	encodeSeconds   prometheus.Counter

	webhookDeliveries *prometheus.CounterVec

	uploads     *prometheus.CounterVec
	uploadBytes *prometheus.CounterVec

	leases     leaseMetrics
	filesSwept *prometheus.CounterVec
}

// New returns the metrics of one App: a new registry with the Go runtime and process
// collectors, cutroom's counters and histograms, and the scrape-time gauges of src.
func New(src Sources, log *slog.Logger) *Metrics {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	m := &Metrics{reg: prometheus.NewRegistry(), log: log}
	m.reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))

	m.httpRequests = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace,
		Name: "http_requests_total", Help: "HTTP requests answered, by method, route template and status."},
		[]string{"method", "route", "status"})
	m.httpDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: Namespace,
		Name: "http_request_duration_seconds", Help: "Time from a request's headers to the end of its answer, by method and route template.",
		Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60}},
		[]string{"method", "route"})
	m.exportsCreated = prometheus.NewCounter(prometheus.CounterOpts{Namespace: Namespace,
		Name: "exports_created_total", Help: "Export tasks created (PENDING)."})
	m.exportsFinished = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace,
		Name: "exports_finished_total", Help: "Export tasks that reached a final status (COMPLETED, FAILED, CANCELED)."},
		[]string{"status"})
	m.renderSeconds = prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: Namespace,
		Name: "export_render_seconds", Help: "Wall time of renders that ended COMPLETED or FAILED, from the claim to the recorded outcome.",
		Buckets: []float64{.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600, 7200}},
		[]string{"status"})
	m.outputBytes = prometheus.NewCounter(prometheus.CounterOpts{Namespace: Namespace,
		Name: "export_output_bytes_total", Help: "Bytes of the output files of completed exports."})
	m.frames = prometheus.NewCounter(prometheus.CounterOpts{Namespace: Namespace,
		Name: "render_frames_total", Help: "Frames rendered and handed to the encoder."})
	m.encodeSeconds = prometheus.NewCounter(prometheus.CounterOpts{Namespace: Namespace,
		Name: "render_encode_seconds_total", Help: "Time the render loops spent in the encoders (frames, sound, closing the file)."})
	m.webhookDeliveries = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace,
		Name: "webhook_deliveries_total", Help: "Webhook delivery attempts by outcome (delivered, failed: retried later, gave_up: moved to the dead letters) and attempt number."},
		[]string{"outcome", "attempt"})
	m.uploads = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace,
		Name: "uploads_total", Help: "Uploads stored, by asset kind."}, []string{"kind"})
	m.uploadBytes = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace,
		Name: "upload_bytes_total", Help: "Bytes of uploads stored, by asset kind."}, []string{"kind"})
	m.filesSwept = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace,
		Name: "blob_files_swept_total", Help: "Files of the blob store that no record served, removed by the sweep, by store (nats: objects, dir: asset directories and temp files)."},
		[]string{"store"})
	m.reg.MustRegister(m.httpRequests, m.httpDuration, m.exportsCreated, m.exportsFinished, m.renderSeconds,
		m.outputBytes, m.frames, m.encodeSeconds, m.webhookDeliveries, m.uploads, m.uploadBytes, m.filesSwept)
	m.registerLeases(src)
	m.reg.MustRegister(newStateCollector(src, log))
	return m
}

// Handler serves the registry in the Prometheus text format. A source that fails leaves
// out its own metrics and is logged; the rest is served.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{
		ErrorLog:      slog.NewLogLogger(m.log.Handler(), slog.LevelWarn),
		ErrorHandling: promhttp.ContinueOnError,
	})
}

// Registry is the App's registry, for programs that gather it themselves.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// ObserveRequest counts one answered HTTP request (server.Metrics). route is the matched
// route template, or "" when none matched.
func (m *Metrics) ObserveRequest(method, route string, status int, d time.Duration) {
	if route == "" {
		route = Unmatched
	}
	method = boundMethod(method)
	m.httpRequests.WithLabelValues(method, route, strconv.Itoa(status)).Inc()
	m.httpDuration.WithLabelValues(method, route).Observe(d.Seconds())
}

// boundMethod keeps the standard methods and folds every other into "OTHER".
func boundMethod(method string) string {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions:
		return method
	}
	return "OTHER"
}

// ExportCreated counts a new export task (export.Metrics).
func (m *Metrics) ExportCreated() { m.exportsCreated.Inc() }

// ExportFinished counts a task that reached the final status (export.Metrics).
func (m *Metrics) ExportFinished(status string) { m.exportsFinished.WithLabelValues(status).Inc() }

// RenderEnded observes a render whose outcome was recorded: its wall time and, for a
// completed one, its output's bytes (export.Metrics).
func (m *Metrics) RenderEnded(status string, d time.Duration, outputBytes int64) {
	m.renderSeconds.WithLabelValues(status).Observe(d.Seconds())
	if outputBytes > 0 {
		m.outputBytes.Add(float64(outputBytes))
	}
}

// Encoded counts frames handed to an encoder and the time spent in it (render.Metrics).
func (m *Metrics) Encoded(frames int, d time.Duration) {
	if frames > 0 {
		m.frames.Add(float64(frames))
	}
	if d > 0 {
		m.encodeSeconds.Add(d.Seconds())
	}
}

// WebhookAttempt counts one delivery attempt by its outcome and number (webhook.Metrics).
func (m *Metrics) WebhookAttempt(outcome string, attempt int) {
	m.webhookDeliveries.WithLabelValues(outcome, strconv.Itoa(attempt)).Inc()
}

// Uploaded counts one stored upload of kind (assets.Metrics).
func (m *Metrics) Uploaded(kind string, bytes int64) {
	m.uploads.WithLabelValues(kind).Inc()
	m.uploadBytes.WithLabelValues(kind).Add(float64(bytes))
}

// FilesSwept counts n files no record served removed from the blob store of kind (nats,
// dir) by the janitor's sweep.
func (m *Metrics) FilesSwept(kind string, n int) { m.filesSwept.WithLabelValues(kind).Add(float64(n)) }
