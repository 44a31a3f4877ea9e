package metrics

import "github.com/prometheus/client_golang/prometheus"

// leaseMetrics count what happens to the leases of several API nodes on one database: the
// tasks a node renders and the webhook attempts it makes.
type leaseMetrics struct {
	lost, takenOver, claimsExpired prometheus.Counter
}

// registerLeases registers the lease counters and, when src has it, the gauge of leases held.
func (m *Metrics) registerLeases(src Sources) {
	m.leases.lost = prometheus.NewCounter(prometheus.CounterOpts{Namespace: Namespace,
		Name: "export_leases_lost_total", Help: "Renders this node stopped because another node took their task (this node's lease expired: it stalled or lost the database)."})
	m.leases.takenOver = prometheus.NewCounter(prometheus.CounterOpts{Namespace: Namespace,
		Name: "export_leases_taken_over_total", Help: "Tasks this node requeued from another node's expired lease (that node stopped during the render)."})
	m.leases.claimsExpired = prometheus.NewCounter(prometheus.CounterOpts{Namespace: Namespace,
		Name: "webhook_claims_expired_total", Help: "Webhook attempts this node found abandoned (another node's claim expired with no outcome recorded) and counted."})
	m.reg.MustRegister(m.leases.lost, m.leases.takenOver, m.leases.claimsExpired)
	if f := src.LeasesHeld; f != nil {
		m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: Namespace,
			Name: "export_leases_held", Help: "Tasks whose lease this node holds (renders running here)."},
			func() float64 { return float64(f()) }))
	}
}

// LeaseLost counts a render stopped because another node took its task (export.Metrics).
func (m *Metrics) LeaseLost() { m.leases.lost.Inc() }

// LeaseTakenOver counts a task requeued from another node's expired lease (export.Metrics).
func (m *Metrics) LeaseTakenOver() { m.leases.takenOver.Inc() }

// WebhookClaimExpired counts an attempt found abandoned by another node (webhook.Metrics).
func (m *Metrics) WebhookClaimExpired() { m.leases.claimsExpired.Inc() }
