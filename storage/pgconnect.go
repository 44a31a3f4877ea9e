package storage

import (
	"context"
	"errors"
	"net"

	"github.com/jackc/pgx/v5/pgconn"
)

// ConnectRetryable reports whether OpenPostgres's error may pass if it is tried again: the
// server did not answer (a network error, a timeout), or answered that it is starting up,
// shutting down or out of connections. A refused password, a database that does not exist,
// a bad URL or any other failure (a migration's, a newer schema) is final. (Added by the
// --database wiring, app/database.go, which retries opening for a bounded time.)
func ConnectRetryable(err error) bool {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch pgErr.Code {
		case "57P01", "57P02", "57P03", // admin_shutdown, crash_shutdown, cannot_connect_now
			"53300",                            // too_many_connections
			"08000", "08001", "08004", "08006": // connection exceptions
			return true
		}
		return false
	}
	var netErr net.Error
	var connErr *pgconn.ConnectError
	return errors.As(err, &netErr) || errors.As(err, &connErr) || errors.Is(err, context.DeadlineExceeded)
}
