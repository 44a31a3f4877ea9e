package storage

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// pgEngine is the key-value layer on PostgreSQL (schema: kv_pg_schema.go). A read-write
// transaction is SERIALIZABLE: PostgreSQL aborts one of two transactions whose reads and
// writes interleave in a way no serial order explains (SQLSTATE 40001; 40P01 for a
// deadlock), and the engine runs it again, up to opts.Attempts times with a jittered
// backoff. So the closures written for bbolt's single writer keep their invariants across
// processes: a transaction either saw every write that committed before it or is run again.
// A read-only transaction is REPEATABLE READ, READ ONLY: one snapshot, never aborted.
type pgEngine struct {
	pool *pgxpool.Pool
	opts PostgresOptions

	mu   sync.RWMutex
	tops map[string]int64 // top-level bucket name -> id; they are never deleted once made

	retries atomic.Uint64 // transactions run again (the race tests report them)

	// id is the payload of this engine's commit notifications: its listener skips them,
	// as the local signal (DB.update) announced those commits already
	id string
}

func (e *pgEngine) name() string { return "postgres" }

func (e *pgEngine) close() error { e.pool.Close(); return nil }

func (e *pgEngine) update(fn func(tx Tx) error) error {
	return e.run(true, e.opts.TransactionTimeout, fn)
}

func (e *pgEngine) view(fn func(tx Tx) error) error {
	return e.run(false, e.opts.TransactionTimeout, fn)
}

// updateOnce is update run once: errRaceLost when a serialization failure or a deadlock
// aborted it (onceUpdater).
func (e *pgEngine) updateOnce(fn func(tx Tx) error) error {
	ctx, cancel := context.WithTimeout(context.Background(), e.opts.TransactionTimeout)
	defer cancel()
	err := e.once(ctx, true, fn)
	if err != nil && retryable(err) {
		return fmt.Errorf("%w: %w", errRaceLost, err)
	}
	return err
}

// runLong is update (writable) or view bounded by ctx instead of TransactionTimeout (Copy).
func (e *pgEngine) runLong(ctx context.Context, writable bool, fn func(tx Tx) error) error {
	return e.runCtx(ctx, writable, fn)
}

// run runs fn in a transaction; a read-write one again while it fails with a serialization
// failure or a deadlock, up to opts.Attempts times. (A read-only transaction is never
// aborted for those: view's fn runs once.)
func (e *pgEngine) run(writable bool, timeout time.Duration, fn func(tx Tx) error) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	return e.runCtx(ctx, writable, fn)
}

func (e *pgEngine) runCtx(ctx context.Context, writable bool, fn func(tx Tx) error) error {
	backoff := time.Millisecond
	for attempt := 1; ; attempt++ {
		err := e.once(ctx, writable, fn)
		if err == nil || !writable || !retryable(err) {
			return err
		}
		e.retries.Add(1)
		if attempt >= e.opts.Attempts {
			return fmt.Errorf("%w (%d attempts): %w", ErrContention, attempt, err)
		}
		select {
		case <-time.After(backoff/2 + rand.N(backoff/2+1)):
		case <-ctx.Done():
			return err
		}
		backoff = min(2*backoff, maxRetryBackoff)
	}
}

// maxRetryBackoff caps the wait between two runs of a write that lost a race: with the
// default 20 attempts a write keeps trying for about 3 s before ErrContention. bench/nodes.sh
// found 10 attempts capped at 100 ms (0.2 s in all) too few: at load 14-19, an export create
// and the progress writes of two nodes' renders aborted each other past them.
const maxRetryBackoff = 250 * time.Millisecond

// retryable reports whether err is PostgreSQL's abort of a transaction that can succeed
// when run again: a serialization failure, a deadlock, or two transactions inserting one
// key (PostgreSQL reports that as a serialization failure when the loser read the key
// first, which the engine always does; the unique violation is kept here as a backstop).
func retryable(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.Code == "40001" || pe.Code == "40P01" ||
		pe.Code == "23505" && (pe.TableName == "kv" || pe.TableName == "kv_buckets"))
}

var (
	txSerializable = pgx.TxOptions{IsoLevel: pgx.Serializable}
	txReadOnly     = pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}
)

func (e *pgEngine) once(ctx context.Context, writable bool, fn func(tx Tx) error) error {
	opts := txReadOnly
	if writable {
		opts = txSerializable
	}
	ptx, err := e.pool.BeginTx(ctx, opts)
	if err != nil {
		return fmt.Errorf("postgres: begin: %w", err)
	}
	t := &pgTx{ctx: ctx, tx: ptx, e: e, writable: writable}
	err = fn(t)
	if t.err != nil { // a failed read: whatever fn made of its nil answer is beside the point
		err = t.err
	}
	if err != nil || !writable {
		_ = ptx.Rollback(ctx)
		return err
	}
	if t.writes > 0 { // delivered to the listeners (Subscribe) when the transaction commits
		t.pending = append(t.pending, pendingWrite{sql: `SELECT pg_notify('` + pgChannel + `', '` + e.id + `')`})
	}
	if err := t.flush(); err != nil {
		_ = ptx.Rollback(ctx)
		return err
	}
	if err := ptx.Commit(ctx); err != nil {
		return fmt.Errorf("postgres: commit: %w", err)
	}
	return nil
}

// pgTx is a transaction of pgEngine. Reads that fail set err, which fails the transaction.
type pgTx struct {
	ctx      context.Context
	tx       pgx.Tx
	e        *pgEngine
	writable bool
	err      error
	ids      map[bucketRef]int64 // nested buckets found or made in this transaction
	writes   int                 // bumped by every write: cursors read again after one
	pending  []pendingWrite      // Puts and Deletes not sent yet (flush)
	queued   int                 // the bytes of pending's keys and values
}

// The most writes, and bytes of their keys and values, a transaction holds before it
// sends them (queue): a transaction of many writes to one bucket and no read of it (a
// bbolt file copied by Copy, the editor states included) would otherwise hold them all
// until its commit, and pgx would encode them into one batch.
const (
	maxPendingWrites = 512
	maxPendingBytes  = 4 << 20
)

// queue adds a write to the pending ones, sending them all once they pass
// maxPendingWrites or maxPendingBytes.
func (t *pgTx) queue(w pendingWrite, size int) error {
	t.pending = append(t.pending, w)
	t.queued += size
	t.writes++
	if len(t.pending) >= maxPendingWrites || t.queued >= maxPendingBytes {
		return t.flush()
	}
	return t.err
}

// pendingWrite is a statement whose answer nothing waits for: a Put or a Delete. They are
// sent together, in one round trip, before the next statement on a bucket they write
// (whose rows it may read) or the commit (flush): reads see them, and a write fails the
// transaction, when it fails, at that round trip instead of at its call. Statements on
// other buckets' rows go first: within a transaction their order changes nothing.
type pendingWrite struct {
	sql    string
	bucket int64 // the bucket whose rows it writes (args[0])
	args   []any
	check  func(pgconn.CommandTag) error // of the statement's answer; nil: none
}

// flush sends the pending writes in one batch.
func (t *pgTx) flush() error {
	if t.err != nil || len(t.pending) == 0 {
		return t.err
	}
	batch := &pgx.Batch{}
	for _, w := range t.pending {
		q := batch.Queue(w.sql, w.args...)
		if w.check != nil {
			q.Exec(w.check)
		}
	}
	t.pending, t.queued = t.pending[:0], 0
	if err := t.tx.SendBatch(t.ctx, batch).Close(); err != nil {
		return t.failed(err)
	}
	return nil
}

// flushFor flushes the pending writes when one writes the rows of bucket.
func (t *pgTx) flushFor(bucket int64) error {
	for _, w := range t.pending {
		if w.bucket == bucket {
			return t.flush()
		}
	}
	return t.err
}

// queryRow, query and exec run a statement on the rows of bucket (their first argument)
// after the pending writes to it.
func (t *pgTx) queryRow(sql string, bucket int64, args ...any) pgx.Row {
	if err := t.flushFor(bucket); err != nil {
		return errRow{err}
	}
	return t.tx.QueryRow(t.ctx, sql, append([]any{bucket}, args...)...)
}

func (t *pgTx) query(sql string, bucket int64, args ...any) (pgx.Rows, error) {
	if err := t.flushFor(bucket); err != nil {
		return nil, err
	}
	return t.tx.Query(t.ctx, sql, append([]any{bucket}, args...)...)
}

func (t *pgTx) exec(sql string, bucket int64, args ...any) (pgconn.CommandTag, error) {
	if err := t.flushFor(bucket); err != nil {
		return pgconn.CommandTag{}, err
	}
	return t.tx.Exec(t.ctx, sql, append([]any{bucket}, args...)...)
}

// errRow is the row of a statement that was not sent: its Scan returns err.
type errRow struct{ err error }

func (r errRow) Scan(...any) error { return r.err }

// bucketRef names a bucket by its parent's id and its name.
type bucketRef struct {
	parent int64
	name   string
}

// errTxNotWritable: a write in a read-only transaction (a defect of storage).
var errTxNotWritable = errors.New("storage: write in a read-only transaction")

// Errors of the key-value layer, bbolt's (a defect of storage when they reach a caller).
var (
	errBucketExists      = errors.New("storage: bucket already exists")
	errBucketNotFound    = errors.New("storage: bucket not found")
	errIncompatibleValue = errors.New("storage: incompatible value (a bucket where a value is, or the reverse)")
	errKeyRequired       = errors.New("storage: key required")
)

// fail records the first failed read.
func (t *pgTx) fail(err error) {
	if t.err == nil {
		t.err = fmt.Errorf("postgres: %w", err)
	}
}

// failed records a failed statement (PostgreSQL has aborted the transaction: whatever the
// closure does with the error, the transaction fails with it) and returns it.
func (t *pgTx) failed(err error) error {
	t.fail(err)
	return t.err
}

func (t *pgTx) root() *pgBucket { return &pgBucket{t: t, id: 0} }

func (t *pgTx) Bucket(name []byte) Bucket { return t.root().Bucket(name) }

func (t *pgTx) CreateBucket(name []byte) (Bucket, error) { return t.root().CreateBucket(name) }

func (t *pgTx) CreateBucketIfNotExists(name []byte) (Bucket, error) {
	return t.root().CreateBucketIfNotExists(name)
}

func (t *pgTx) DeleteBucket(name []byte) error { return t.root().DeleteBucket(name) }

func (t *pgTx) ForEach(fn func(name []byte, b Bucket) error) error {
	root := t.root()
	return root.ForEachBucket(func(name []byte) error { return fn(name, root.Bucket(name)) })
}

// pgBucket is a bucket of a pgTx, by id.
type pgBucket struct {
	t  *pgTx
	id int64
}

// lookup returns the id of the nested bucket name (found false when there is none; value
// true when name holds a value).
func (b *pgBucket) lookup(name []byte) (id int64, found, value bool, err error) {
	ref := bucketRef{b.id, string(name)}
	if id, ok := b.t.ids[ref]; ok {
		return id, true, false, nil
	}
	if b.id == 0 {
		b.t.e.mu.RLock()
		id, ok := b.t.e.tops[ref.name]
		b.t.e.mu.RUnlock()
		if ok {
			return id, true, false, nil
		}
	}
	var child *int64
	err = b.t.queryRow(`SELECT child FROM kv WHERE bucket = $1 AND key = $2`, b.id, name).Scan(&child)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return 0, false, false, nil
	case err != nil:
		return 0, false, false, b.t.failed(err)
	case child == nil:
		return 0, false, true, nil
	}
	if b.id == 0 {
		// Top-level buckets are made by migrations and never deleted (one deleted here is
		// forgotten): every transaction of the process may use the id of a committed one.
		b.t.e.mu.Lock()
		b.t.e.tops[ref.name] = *child
		b.t.e.mu.Unlock()
	}
	b.remember(ref, *child)
	return *child, true, false, nil
}

// loadTops reads the ids of the top-level buckets (lookup's cache) in one query.
func (e *pgEngine) loadTops(ctx context.Context) error {
	rows, err := e.pool.Query(ctx, `SELECT key, child FROM kv WHERE bucket = 0 AND child IS NOT NULL`)
	if err != nil {
		return fmt.Errorf("postgres: %w", err)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	for rows.Next() {
		var name []byte
		var id int64
		if err := rows.Scan(&name, &id); err != nil {
			rows.Close()
			return fmt.Errorf("postgres: %w", err)
		}
		e.tops[string(name)] = id
	}
	return rows.Err()
}

// remember keeps the id of a bucket found or made in this transaction.
func (b *pgBucket) remember(ref bucketRef, id int64) {
	if b.t.ids == nil {
		b.t.ids = make(map[bucketRef]int64)
	}
	b.t.ids[ref] = id
}

// Bucket returns the nested bucket name. In a failed transaction it returns a bucket all
// the same, empty and refusing writes, so that code which knows a bucket exists (a
// top-level one) does not fault before the transaction fails with its error.
func (b *pgBucket) Bucket(name []byte) Bucket {
	if b.t.err != nil {
		return &pgBucket{t: b.t, id: -1}
	}
	id, found, _, err := b.lookup(name)
	if err != nil {
		return &pgBucket{t: b.t, id: -1}
	}
	if !found {
		return nil
	}
	return &pgBucket{t: b.t, id: id}
}

func (b *pgBucket) CreateBucket(name []byte) (Bucket, error) { return b.createBucket(name, false) }

func (b *pgBucket) CreateBucketIfNotExists(name []byte) (Bucket, error) {
	return b.createBucket(name, true)
}

// createBucket makes the nested bucket name; one already there is returned with
// ifNotExists, else refused.
func (b *pgBucket) createBucket(name []byte, ifNotExists bool) (Bucket, error) {
	if err := b.writable(name); err != nil {
		return nil, err
	}
	id, found, value, err := b.lookup(name)
	switch {
	case err != nil:
		return nil, err
	case value:
		return nil, errIncompatibleValue
	case found && ifNotExists:
		return &pgBucket{t: b.t, id: id}, nil
	case found:
		return nil, errBucketExists
	}
	if err := b.t.queryRow(`WITH n AS (INSERT INTO kv_buckets DEFAULT VALUES RETURNING id)
		INSERT INTO kv (bucket, key, child) SELECT $1, $2, id FROM n RETURNING child`, b.id, name).Scan(&id); err != nil {
		return nil, b.t.failed(err)
	}
	b.t.writes++
	b.remember(bucketRef{b.id, string(name)}, id)
	return &pgBucket{t: b.t, id: id}, nil
}

func (b *pgBucket) DeleteBucket(name []byte) error {
	if err := b.writable(name); err != nil {
		return err
	}
	id, found, value, err := b.lookup(name)
	switch {
	case err != nil:
		return err
	case value:
		return errIncompatibleValue
	case !found:
		return errBucketNotFound
	}
	if err := b.t.flush(); err != nil { // writes to its nested buckets, at any depth
		return err
	}
	if _, err := b.t.exec(`DELETE FROM kv WHERE bucket = $1 AND key = $2`, b.id, name); err != nil {
		return b.t.failed(err)
	}
	// the bucket, its nested buckets at any depth, and (ON DELETE CASCADE) their keys
	if _, err := b.t.exec(`WITH RECURSIVE d (id) AS (
			SELECT $1::bigint
			UNION ALL SELECT kv.child FROM kv JOIN d ON kv.bucket = d.id WHERE kv.child IS NOT NULL)
		DELETE FROM kv_buckets WHERE id IN (SELECT id FROM d)`, id); err != nil {
		return b.t.failed(err)
	}
	b.t.writes++
	ref := bucketRef{b.id, string(name)}
	if b.id == 0 {
		b.t.e.mu.Lock()
		delete(b.t.e.tops, ref.name)
		b.t.e.mu.Unlock()
	}
	delete(b.t.ids, ref)
	return nil
}

// writable refuses a write in a read-only or failed transaction, or of an empty key.
func (b *pgBucket) writable(key []byte) error {
	switch {
	case b.t.err != nil:
		return b.t.err
	case !b.t.writable:
		return errTxNotWritable
	case len(key) == 0:
		return errKeyRequired
	}
	return nil
}

func (b *pgBucket) Get(key []byte) []byte {
	if b.t.err != nil {
		return nil
	}
	var v []byte
	err := b.t.queryRow(`SELECT value FROM kv WHERE bucket = $1 AND key = $2`, b.id, key).Scan(&v)
	if err != nil {
		if !errors.Is(err, pgx.ErrNoRows) {
			b.t.fail(err)
		}
		return nil
	}
	return v // nil for a nested bucket, as bbolt's
}

// getMany is Get of each key in one query (getMany in kv.go).
func (b *pgBucket) getMany(keys [][]byte) [][]byte {
	out := make([][]byte, len(keys))
	if b.t.err != nil || len(keys) == 0 {
		return out
	}
	rows, err := b.t.query(`SELECT k.i, kv.value FROM unnest($2::bytea[]) WITH ORDINALITY AS k (key, i)
		JOIN kv ON kv.bucket = $1 AND kv.key = k.key`, b.id, keys)
	if err != nil {
		b.t.fail(err)
		return out
	}
	defer rows.Close()
	for rows.Next() {
		var i int
		var v []byte
		if err := rows.Scan(&i, &v); err != nil {
			b.t.fail(err)
			return out
		}
		if v != nil && i >= 1 && i <= len(keys) { // a nested bucket's key has no value
			out[i-1] = v
		}
	}
	if err := rows.Err(); err != nil {
		b.t.fail(err)
	}
	return out
}

// nestedKeys is the keys of b's nested buckets in one query (nestedKeys in kv.go). The
// pending writes go first, all of them: they may be to any nested bucket.
func (b *pgBucket) nestedKeys() ([][]byte, error) {
	if err := b.t.flush(); err != nil {
		return nil, err
	}
	rows, err := b.t.query(`SELECT c.key FROM kv p JOIN kv c ON c.bucket = p.child
		WHERE p.bucket = $1 AND p.child IS NOT NULL ORDER BY p.key, c.key`, b.id)
	if err != nil {
		return nil, b.t.failed(err)
	}
	defer rows.Close()
	var out [][]byte
	for rows.Next() {
		var k []byte
		if err := rows.Scan(&k); err != nil {
			return nil, b.t.failed(err)
		}
		out = append(out, k)
	}
	if err := rows.Err(); err != nil {
		return nil, b.t.failed(err)
	}
	return out, nil
}

// Put stores value under key; it is sent with the next statement (pendingWrite). A key
// that is a nested bucket's fails the transaction then.
func (b *pgBucket) Put(key, value []byte) error {
	if err := b.writable(key); err != nil {
		return err
	}
	if value == nil {
		value = []byte{} // an empty value, not a bucket's NULL
	}
	// the key is copied, as bbolt copies it; the value must stay as it is until the
	// transaction ends, as bbolt requires
	return b.t.queue(pendingWrite{sql: `INSERT INTO kv (bucket, key, value) VALUES ($1, $2, $3)
		ON CONFLICT (bucket, key) DO UPDATE SET value = excluded.value WHERE kv.child IS NULL`,
		bucket: b.id, args: []any{b.id, bytes.Clone(key), value}, check: putCheck}, len(key)+len(value))
}

func putCheck(tag pgconn.CommandTag) error {
	if tag.RowsAffected() == 0 {
		return errIncompatibleValue
	}
	return nil
}

// Delete removes key; it is sent with the next statement (pendingWrite). A nested bucket's
// key is left alone (bbolt refuses it with an error).
func (b *pgBucket) Delete(key []byte) error {
	if err := b.writable(key); err != nil {
		return err
	}
	return b.t.queue(pendingWrite{sql: `DELETE FROM kv WHERE bucket = $1 AND key = $2 AND child IS NULL`,
		bucket: b.id, args: []any{b.id, bytes.Clone(key)}}, len(key))
}

func (b *pgBucket) ForEach(fn func(k, v []byte) error) error {
	c := b.cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		if err := fn(k, v); err != nil {
			return err
		}
	}
	return b.t.err
}

func (b *pgBucket) ForEachBucket(fn func(name []byte) error) error {
	c := b.cursor()
	c.buckets = true
	for k, _ := c.First(); k != nil; k, _ = c.Next() {
		if err := fn(k); err != nil {
			return err
		}
	}
	return b.t.err
}

func (b *pgBucket) Cursor() Cursor { return b.cursor() }

func (b *pgBucket) Sequence() uint64 {
	if b.t.err != nil {
		return 0
	}
	var seq int64
	if err := b.t.queryRow(`SELECT seq FROM kv_buckets WHERE id = $1`, b.id).Scan(&seq); err != nil {
		b.t.fail(err)
	}
	return uint64(seq)
}

func (b *pgBucket) NextSequence() (uint64, error) {
	if err := b.writable([]byte{1}); err != nil {
		return 0, err
	}
	var seq int64
	if err := b.t.queryRow(`UPDATE kv_buckets SET seq = seq + 1 WHERE id = $1 RETURNING seq`, b.id).Scan(&seq); err != nil {
		return 0, b.t.failed(err)
	}
	b.t.writes++
	return uint64(seq), nil
}

func (b *pgBucket) SetSequence(v uint64) error {
	if err := b.writable([]byte{1}); err != nil {
		return err
	}
	if _, err := b.t.exec(`UPDATE kv_buckets SET seq = $2 WHERE id = $1`, b.id, int64(v)); err != nil {
		return b.t.failed(err)
	}
	b.t.writes++
	return nil
}
