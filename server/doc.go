// Package server is cutroom's HTTP interface: the gin engine, routes, authentication,
// request and response shapes, and the one mapping from errors to problem responses.
//
// Decisions:
//   - Errors are apierr errors; statusOf maps each apierr.Kind to its status in one switch,
//     and problemFor is the only place an error becomes a problem. An error without a kind
//     is a fault of the server: logged with the route, answered 500 INTERNAL_ERROR with a
//     generic detail.
//   - The server's own codes are defined next to the rule that raises them (request.go for
//     decoding, idempotency.go, ranges.go, ...). storage's sentinel errors are mapped where
//     the server calls storage (projects, auth, idempotency), with the texts clients have
//     always seen.
//   - The operator's routes live under /admin/, outside the client API: served only when
//     Config.AdminToken is set (else 404 like any unknown path), guarded by that token alone
//     (Authorization: Bearer, SHA-256 sums compared in constant time; API keys never work
//     there, 401 ADMIN_TOKEN_INVALID). GET /admin/backup streams a storage.Snapshot with its
//     Content-Length; every write gets a minute, so a client that stops reading cannot keep
//     the snapshot's read transaction open, and a stream that breaks off aborts the
//     connection (the client sees a short body).
package server
