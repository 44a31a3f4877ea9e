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
package server
