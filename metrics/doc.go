// Package metrics is cutroom's Prometheus instrumentation: a registry owned by the App (never
// the global default registry), the cutroom_... metrics beside the Go runtime and process
// collectors, and the handler of GET /metrics. It is the only package that imports
// github.com/prometheus/client_golang, and it imports no project package: the components
// that count (server, export, render, webhook, assets) declare small interfaces of their own
// that *Metrics implements, and what is cheaper to read than to count (active exports by
// status and phase, the queue, active renders, stored assets, free disk) is read at scrape
// time through the funcs of Sources.
//
// Decisions:
//   - Label values are bounded: HTTP routes are the route templates the server matched
//     (OpenAPI style, "/v1/projects/{projectId}"), "unmatched" for every request no route
//     matched; methods outside the standard set are "OTHER"; statuses are HTTP status codes;
//     export statuses and phases, webhook outcomes, and asset kinds are the closed sets of
//     the packages that report them; webhook attempts are numbered up to the retry
//     schedule's length plus one. No label ever carries an id, a raw path or a query.
//   - Counters count events since the process started (Prometheus handles restarts);
//     gauges read at scrape time show the state of the database and the disk then. A
//     scrape reads the active export tasks (at most a few per workspace) and every asset
//     record's kind and size (one read transaction); nothing is cached between scrapes.
//   - A source that fails makes only its own metrics invalid; the rest of the scrape is
//     served (promhttp.ContinueOnError) and the error is logged.
//   - Every method is safe for concurrent use and cheap (an atomic add or a histogram
//     bucket): the render loop calls Encoded once per frame.
package metrics
