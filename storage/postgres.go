package storage

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
)

// PostgresOptions configure OpenPostgres. The zero value means the defaults.
type PostgresOptions struct {
	// PoolSize is the most connections the DB opens for transactions (default 10; at least
	// 2, as opening holds one for the migration lock): as many transactions run at once,
	// the rest wait for a connection. Subscribe adds one connection, outside the pool.
	PoolSize int32
	// Attempts is how many times a transaction runs when PostgreSQL aborts it for losing a
	// race with another one (serialization failure, deadlock) before it fails with
	// ErrContention (default 20; the waits between runs grow to maxRetryBackoff).
	Attempts int
	// StatementTimeout bounds each SQL statement on the server (default 10 s).
	StatementTimeout time.Duration
	// TransactionTimeout bounds each transaction, its retries included, on the client: a
	// connection that stops answering fails it (default 30 s). Copy is bounded by its
	// context instead.
	TransactionTimeout time.Duration
	// Now returns the current time; time.Now when nil.
	Now func() time.Time
}

func (o *PostgresOptions) defaults() {
	if o.PoolSize <= 0 {
		o.PoolSize = 10
	}
	o.PoolSize = max(o.PoolSize, 2)
	if o.Attempts <= 0 {
		o.Attempts = 20
	}
	if o.StatementTimeout <= 0 {
		o.StatementTimeout = 10 * time.Second
	}
	if o.TransactionTimeout <= 0 {
		o.TransactionTimeout = 30 * time.Second
	}
	if o.Now == nil {
		o.Now = time.Now
	}
}

// ErrNotBBolt is the refusal of what only a bbolt database has (Snapshot, Path, CheckFile
// and Restore): a PostgreSQL database is backed up and restored with PostgreSQL's own tools.
var ErrNotBBolt = errors.New("storage: not a bbolt database")

// errPostgresBackup is ErrNotBBolt with what to do instead.
var errPostgresBackup = fmt.Errorf("%w: back up and restore a PostgreSQL database with pg_dump and pg_restore", ErrNotBBolt)

// IsPostgresURL reports whether s names a PostgreSQL database (postgres:// or
// postgresql://), not a file.
func IsPostgresURL(s string) bool {
	return strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://")
}

// OpenPostgres connects to the PostgreSQL database at url (postgres://user@host/db?...; the
// role needs to create tables on first use) and applies pending migrations: the SQL
// schema's, then the records' (the same ones a bbolt database runs), one node at a time
// under an advisory lock, so nodes starting together do not race. Several processes may
// open the same database (Shared): every invariant holds across them (kv_pg.go).
func OpenPostgres(ctx context.Context, url string, opts PostgresOptions) (*DB, error) {
	opts.defaults()
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	cfg.MaxConns = opts.PoolSize
	rp := cfg.ConnConfig.RuntimeParams
	rp["statement_timeout"] = strconv.FormatInt(opts.StatementTimeout.Milliseconds(), 10)
	rp["idle_in_transaction_session_timeout"] = strconv.FormatInt(opts.TransactionTimeout.Milliseconds(), 10)
	if rp["application_name"] == "" {
		rp["application_name"] = "cutroom"
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	e := &pgEngine{pool: pool, opts: opts, tops: make(map[string]int64), id: uuid.NewString()}
	db := &DB{kv: e, hub: newHub(), now: opts.Now}
	if err := db.migratePostgres(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	return db, nil
}

// migratePostgres holds the migration lock on a connection of its own while the SQL
// migrations and then the record migrations run. ctx bounds reaching the database and the
// wait for the lock (another node migrating); once the lock is held the migrations run to
// their end (within migrateTimeout), each statement bounded by statement_timeout: a deadline meant for reaching
// the database (app's --database-wait) cut a long record migration of a large database,
// at every start.
func (db *DB) migratePostgres(ctx context.Context) error {
	e := db.kv.(*pgEngine)
	conn, err := e.pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("postgres: connect: %w", err)
	}
	defer conn.Release()
	if err := lockMigrations(ctx, conn); err != nil {
		return err
	}
	mctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), migrateTimeout)
	defer cancel()
	defer func() {
		uctx, cancel := context.WithTimeout(mctx, e.opts.StatementTimeout)
		defer cancel()
		conn.Exec(uctx, `SELECT pg_advisory_unlock($1)`, int64(pgLockMigrate)) //nolint:errcheck // the session's end releases it too
	}()
	if err := migrateSQL(mctx, conn); err != nil {
		return fmt.Errorf("postgres: %w", err)
	}
	if err := db.migrate(mctx); err != nil {
		return err
	}
	return e.loadTops(mctx)
}

// migrateTimeout bounds the migrations once their lock is held (a database that stops
// answering mid-way, which no statement_timeout ends).
const migrateTimeout = time.Hour

// lockMigrations takes the migration lock on conn, waiting while ctx lasts for a process
// that holds it. It tries again rather than waiting in pg_advisory_lock, which
// statement_timeout (10 s) would end with an error no retry takes, while another node's
// migration may well take longer.
func lockMigrations(ctx context.Context, conn *pgxpool.Conn) error {
	for {
		var got bool
		if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock($1)`, int64(pgLockMigrate)).Scan(&got); err != nil {
			return fmt.Errorf("postgres: take the migration lock: %w", err)
		}
		if got {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("postgres: another process holds the migration lock (a node migrating the database): %w", ctx.Err())
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// Engine names the database's engine: "bbolt" or "postgres".
func (db *DB) Engine() string { return db.kv.name() }

// Shared reports whether other processes may use the same database at once (PostgreSQL):
// then what one process keeps in memory of the database may be stale.
func (db *DB) Shared() bool { return db.bolt == nil }
