package app

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"time"

	"github.com/cutroom/cutroom/storage"
)

// Where records live (Config.Database, --database): empty is the bbolt file
// <DataDir>/cutroom.db, one process at a time; a postgres:// or postgresql:// URL is a
// PostgreSQL database that several API nodes share. The URL's password is never shown: every
// message, log line and error names the database by its redacted URL (Redacted) and host.
//
// A node often starts before its database answers (both started together, a database
// restarting): opening a PostgreSQL database is retried, with a growing pause of up to
// databaseRetryMax, for Config.DatabaseWait (DefaultDatabaseWait). Only a failure that may
// pass is retried: the server unreachable, starting up or out of connections; a refused
// password, a missing database or a bad URL fail at once.

// DefaultDatabaseWait is how long opening a PostgreSQL database keeps retrying (--database-wait).
const DefaultDatabaseWait = 30 * time.Second

// databaseRetryMax is the longest pause between two attempts to open a PostgreSQL database.
const databaseRetryMax = 5 * time.Second

// DatabaseURL is a parsed --database value.
type DatabaseURL struct {
	raw    string
	secret string // the password, scrubbed from error texts
	// Redacted is the URL with its password (user info or password parameter) as "xxxxx".
	Redacted string
	// Host is the host (and port) it names, for messages: "localhost:5432", or "the default
	// socket" when the URL names none.
	Host string
}

// ParseDatabaseURL checks a --database value: a postgres:// or postgresql:// URL. Its errors
// never hold the password.
func ParseDatabaseURL(s string) (DatabaseURL, error) {
	scheme, _, ok := strings.Cut(s, "://")
	if !ok || (scheme != "postgres" && scheme != "postgresql") {
		return DatabaseURL{}, fmt.Errorf("--database wants a postgres:// or postgresql:// URL (empty: the bbolt file in --data-dir), got %q", redactUnparsed(s))
	}
	u, err := url.Parse(s)
	if err != nil {
		return DatabaseURL{}, fmt.Errorf("--database %s: not a valid URL", redactUnparsed(s))
	}
	d := DatabaseURL{raw: s, Host: u.Host}
	q := u.Query()
	if pw, ok := u.User.Password(); ok {
		d.secret = pw
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	if pw := q.Get("password"); pw != "" {
		d.secret = pw
		q.Set("password", "xxxxx")
		u.RawQuery = q.Encode()
	}
	if d.Host == "" {
		d.Host = q.Get("host")
	}
	if d.Host == "" {
		d.Host = "the default socket"
	}
	d.Redacted = u.String()
	return d, nil
}

// redactUnparsed shows a value that is not a usable URL without anything after its scheme,
// where a password may be.
func redactUnparsed(s string) string {
	if scheme, _, ok := strings.Cut(s, "://"); ok {
		return scheme + "://…"
	}
	if len(s) > 12 {
		return s[:12] + "…"
	}
	return s
}

// scrub returns err with the password removed from its text (wrapping err itself, so that
// errors.Is and As still see through it).
func (d DatabaseURL) scrub(err error) error {
	if err == nil || d.secret == "" || !strings.Contains(err.Error(), d.secret) {
		return err
	}
	return &scrubbedError{msg: strings.ReplaceAll(err.Error(), d.secret, "xxxxx"), err: err}
}

type scrubbedError struct {
	msg string
	err error
}

func (e *scrubbedError) Error() string { return e.msg }
func (e *scrubbedError) Unwrap() error { return e.err }

// openPostgres opens the PostgreSQL database of Config.Database, retrying a failure that
// may pass for Config.DatabaseWait.
func (a *App) openPostgres(ctx context.Context) error {
	d, err := ParseDatabaseURL(a.cfg.Database)
	if err != nil {
		return err
	}
	db, err := openRetrying(ctx, d, a.cfg.DatabaseWait, a.logger(), func(ctx context.Context) (*storage.DB, error) {
		return storage.OpenPostgres(ctx, d.raw, storage.PostgresOptions{})
	})
	if err != nil {
		return err
	}
	a.DB = db
	a.logger().Info("database", "engine", db.Engine(), "url", d.Redacted)
	return nil
}

// openRetrying calls open until it succeeds, fails for good, or wait has passed; each
// attempt gets what is left of wait (at least databaseRetryMax).
func openRetrying(ctx context.Context, d DatabaseURL, wait time.Duration, log *slog.Logger, open func(context.Context) (*storage.DB, error)) (*storage.DB, error) {
	deadline := time.Now().Add(wait)
	pause := 250 * time.Millisecond
	for attempt := 1; ; attempt++ {
		actx, cancel := context.WithDeadline(ctx, later(deadline, time.Now().Add(databaseRetryMax)))
		db, err := open(actx)
		cancel()
		if err == nil {
			return db, nil
		}
		err = d.scrub(err)
		retry, left := storage.ConnectRetryable(err), time.Until(deadline)
		if !retry || left <= 0 || ctx.Err() != nil {
			if retry && ctx.Err() == nil {
				err = fmt.Errorf("did not answer within %s (--database-wait): %w", wait, err)
			}
			return nil, fmt.Errorf("the database at %s (%s): %w", d.Host, d.Redacted, err)
		}
		log.Warn("the database does not answer yet; retrying", "host", d.Host, "url", d.Redacted, "attempt", attempt, "err", err)
		select { // an ended ctx fails the next attempt at once
		case <-ctx.Done():
		case <-time.After(min(pause, left)):
		}
		pause = min(2*pause, databaseRetryMax)
	}
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
