// Package server is cutroom's HTTP interface: the gin engine, routes, authentication,
// request and response shapes, and the one mapping from errors to problem responses.
//
// Decisions:
//   - Errors are apierr errors; statusOf maps each apierr.Kind to its status in one switch,
//     and problemFor is the only place an error becomes a problem. An error without a kind
//     is a fault of the server: logged with the route, answered 500 INTERNAL_ERROR with a
//     generic detail.
//   - The server's own codes are one table (codes.go), grouped by the rule or route that
//     raises them: a reader sees every code the server itself answers in one place (they
//     were spread over 16 files before, each block the shape of the next). storage's sentinel errors are mapped where
//     the server calls storage (projects, auth, idempotency), with the texts clients have
//     always seen. A project commit that fails for lack of space is 507 STORAGE_FULL
//     (diskspace.Refuse, in projectError).
//   - POST /v1/editor/validate (editor.go) is validation as the interface defines it: data
//     is {valid, errors} with every schema and semantic issue. What this server cannot
//     resolve or draw (unknown illustrations, unreadable background images and assets,
//     features the renderer lacks, font families no font provides) is answered in
//     meta.warnings, with the codes export create refuses with (a missing font only with
//     --missing-fonts=refuse; by default the task carries it in its warnings); it does not
//     make a state invalid. GET /v1/fonts lists the font library's families with weights,
//     styles and sources (Deps.FontFamilies, which the App builds from compositor/text,
//     which the server does not import). Warnings and the capabilities'
//     itemTypes are in meta because the interface's OpenAPI file closes data's objects
//     (additionalProperties: false), and the server tests check every success answer against
//     that file as well as against openapi.json. No path has a trailing-slash alias
//     (RedirectTrailingSlash off): /v1/exports/ is 404 ROUTE_NOT_FOUND.
//   - POST /v1/uploads takes the file's bytes as the body, as the interface does, and
//     nothing else: a multipart/form-data body (curl -F, an HTML form) is refused first, 422
//     ASSET_TYPE_UNKNOWN with a detail that shows the curl --data-binary command, rather
//     than asking for x-file-name and then failing on the form's bytes. Forms are not taken
//     as a second way in: a part has no declared length to refuse early by its kind's cap,
//     and editors and SDKs send raw bytes (examples/lib.sh: cr_upload).
//   - GET /healthz and GET /readyz (health.go) need no key: /healthz answers 200 while the
//     engine serves; /readyz answers what Deps.Health (the App) reports, 200 or 503 with the
//     failed checks, as words only.
//   - observe (observe.go) is the outermost middleware: it gives every request its id (the
//     client's X-Request-Id when it is 1..128 safe characters, else a new UUID), echoes it,
//     and after the answer logs one line (method, route template, status, duration, bytes,
//     workspace id, request id) and counts it in Deps.Metrics. It logs and counts route
//     templates in the OpenAPI style ("/v1/projects/{projectId}", "" -> "unmatched"), never
//     raw paths or queries, which carry ids and link signatures, and no header.
//   - GET /metrics (Deps.Metrics's handler) is outside the API key: API keys do not work
//     there; Config.MetricsToken, when set, is compared in constant time with the bearer
//     token (401 METRICS_TOKEN_INVALID otherwise). The server does not import prometheus.
//   - The operator's routes live under /admin/, outside the client API: served only when
//     Config.AdminToken is set (else 404 like any unknown path), guarded by that token alone
//     (Authorization: Bearer, SHA-256 sums compared in constant time; API keys never work
//     there, 401 ADMIN_TOKEN_INVALID). GET /admin/backup streams a storage.Snapshot with its
//     Content-Length; every write gets a minute, so a client that stops reading cannot keep
//     the snapshot's read transaction open, and a stream that breaks off aborts the
//     connection (the client sees a short body).
//   - GET /v1/exports/events (events.go) streams export.Service's event log as Server-Sent
//     Events: task.updated with the task as GET shows it, an id per event that
//     Last-Event-ID resumes after (an id the log cannot replay gets the current state of the
//     workspace's active and newest tasks first), a heartbeat comment every EventHeartbeat,
//     at most MaxEventStreams per key (429 EVENT_STREAMS_LIMIT). A stream re-checks its key
//     at each heartbeat and at most once a second as changes come, and ends when it no longer
//     authenticates; HTTPServer registers CloseStreams with the http.Server's shutdown,
//     which would otherwise wait for streams that never go idle.
//   - Frame previews (preview.go): GET /v1/projects/{id}/frame and POST /v1/editor/frame
//     draw one frame through Deps.Previews (the App wires render.Stills in; the server
//     never imports the compositor). The ETag hashes the workspace, the state's bytes, the
//     time in ms, the width, the format and, for VersionedPreviews, their Version (the
//     App's fonts: a font uploaded changes the picture); If-None-Match answers 304 before anything is
//     drawn, and the last 32 MiB of pictures are kept. Width is capped at MaxPreviewSide on
//     both sides; at most MaxPreviews draw per workspace (429 FRAME_PREVIEWS_BUSY). webp is
//     refused (FRAME_FORMAT_UNSUPPORTED): no encoder without a new cgo dependency. The
//     drawing's time limit is the renderer's (render.PipelineConfig.MaxPreviewSeconds); its
//     failure is 422 FRAME_RENDER_TIMEOUT. The query's t is a plain decimal (plainDecimal):
//     strconv.ParseFloat alone reads hex, underscores and exponents.
//   - CORS (cors.go) is off unless Config.CORSOrigins (--cors-origins) lists exact origins
//     or "*": then every answer on the API's paths gets Vary: Origin, and an allowed
//     origin's gets Access-Control-Allow-Origin and the exposed headers, refusals included.
//     A preflight is answered 204 only for a route and method the API serves: a second gin
//     engine holds the router's own routes (each answering its template), so a preflight
//     matches exactly as the request it announces will, every new route has one, and any
//     other preflight goes on to the router's 404/405 as without CORS. A foreign origin's
//     preflight is 403 CORS_ORIGIN_NOT_ALLOWED (the network panel says why); its other
//     requests are served without Access-Control-Allow-Origin, so the browser hides them.
//     /admin/, /metrics and the console's pages never answer CORS. No
//     Access-Control-Allow-Credentials ever: the API authenticates by a header the page
//     sets, not cookies, so "*" is allowed. cors runs before checkHost so an allowed page
//     can read HOST_NOT_ALLOWED; a preflight on a foreign Host is refused by checkHost. A
//     preflight is logged and counted under the route it asked about. Signed file links
//     answer Access-Control-Allow-Origin: * as before, whatever the list.
//   - A client that went away (its request's context ended) and whose request failed with an
//     internal error for that reason is logged at info as "client closed request" and
//     answered 499 (the status nginx logs for it), never as an internal error or a 500.
package server
