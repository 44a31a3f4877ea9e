package storage

import "github.com/jackc/pgx/v5"

// pgCursor walks a bucket of a pgTx in batches of keys read in one direction: Seek and Next
// read forward from a key, Last and Prev backward. A batch starts at cursorBatch keys and
// doubles while the walk goes on, up to cursorMaxBatch keys and about cursorBatchBytes of
// values: a walk over a large bucket holds one batch in memory, never the bucket. A write in
// the transaction (which may change the keys ahead) makes the next step read again from
// where the cursor is.
//
// It moves as bbolt's cursor does at the ends: Next past the last key returns nil and stays
// on the last key, Prev before the first stays on the first, and Seek past the last key
// leaves the cursor after it (Prev then returns the last key).
type pgCursor struct {
	b       *pgBucket
	buckets bool // nested buckets only (ForEachBucket)

	pos  []byte // the key the cursor is on; nil when on none
	past bool   // no key: Seek went past the last

	batch   []pgEntry // read ahead from pos; batch[i] is pos while the batch is valid
	i       int
	forward bool
	more    bool // the batch stopped at its limit: there may be keys beyond it
	writes  int  // the transaction's writes when the batch was read
	size    int  // the next batch's limit
}

type pgEntry struct{ k, v []byte }

const (
	cursorBatch      = 32
	cursorMaxBatch   = 1024
	cursorBatchBytes = 4 << 20
)

func (b *pgBucket) cursor() *pgCursor { return &pgCursor{b: b} }

func (c *pgCursor) First() ([]byte, []byte) { return c.jump(true, nil) }
func (c *pgCursor) Last() ([]byte, []byte)  { return c.jump(false, nil) }

func (c *pgCursor) Seek(key []byte) ([]byte, []byte) {
	k, v := c.jump(true, key)
	c.past = k == nil && c.b.t.err == nil
	return k, v
}

func (c *pgCursor) Next() ([]byte, []byte) { return c.step(true) }

func (c *pgCursor) Prev() ([]byte, []byte) {
	if c.pos == nil && c.past {
		return c.Last()
	}
	return c.step(false)
}

// Delete removes the key the cursor is on; the cursor stays there (Next and Prev move to
// its neighbours).
func (c *pgCursor) Delete() error {
	if c.pos == nil {
		return nil
	}
	if err := c.b.Delete(c.pos); err != nil {
		return err
	}
	c.writes = c.b.t.writes // the keys ahead in the batch are still there
	return nil
}

// jump lands on the first key from key (inclusive) forward or backward: nil, the first or
// last key.
func (c *pgCursor) jump(forward bool, key []byte) ([]byte, []byte) {
	c.size, c.past = cursorBatch, false
	if !c.read(forward, key, true) {
		c.pos, c.batch = nil, nil
		return nil, nil
	}
	return c.land()
}

func (c *pgCursor) land() ([]byte, []byte) {
	e := c.batch[c.i]
	c.pos = e.k
	return e.k, e.v
}

// step moves one key forward or backward, reading the next batch when this one is spent,
// was read the other way, or predates a write. At either end it stays where it is.
func (c *pgCursor) step(forward bool) ([]byte, []byte) {
	if c.pos == nil {
		return nil, nil
	}
	if c.batch != nil && forward == c.forward && c.writes == c.b.t.writes {
		if c.i+1 < len(c.batch) {
			c.i++
			return c.land()
		}
		if !c.more {
			return nil, nil
		}
		c.size = min(2*c.size, cursorMaxBatch)
	} else {
		c.size = cursorBatch
	}
	if !c.read(forward, c.pos, false) {
		c.batch = nil // the cursor stays on pos; the next step reads again
		return nil, nil
	}
	return c.land()
}

// read reads a batch from key (inclusive or not; nil: from the first or last key) and
// reports whether it holds a key.
func (c *pgCursor) read(forward bool, key []byte, inclusive bool) bool {
	t := c.b.t
	if t.err != nil {
		return false
	}
	var rows pgx.Rows
	var err error
	q := cursorQueries[queryIndex(forward, key != nil, inclusive, c.buckets)]
	if key != nil {
		rows, err = t.query(q, c.b.id, key, c.size)
	} else {
		rows, err = t.query(q, c.b.id, c.size)
	}
	if err != nil {
		t.fail(err)
		return false
	}
	var batch []pgEntry
	bytes := 0
	for rows.Next() {
		var e pgEntry
		var bucket bool
		if err := rows.Scan(&e.k, &e.v, &bucket); err != nil {
			rows.Close()
			t.fail(err)
			return false
		}
		if !bucket && e.v == nil {
			e.v = []byte{}
		}
		bytes += len(e.k) + len(e.v)
		batch = append(batch, e)
	}
	if err := rows.Err(); err != nil {
		t.fail(err)
		return false
	}
	if len(batch) == 0 {
		return false
	}
	c.batch, c.i, c.forward, c.more, c.writes = batch, 0, forward, len(batch) == c.size, t.writes
	if bytes > cursorBatchBytes { // large values: smaller batches from now on
		c.size = max(1, c.size*cursorBatchBytes/bytes)
	}
	return true
}

// cursorQueries are read's queries, by queryIndex.
var cursorQueries = func() (qs [16]string) {
	for i := range qs {
		forward, from, inclusive, buckets := i&1 != 0, i&2 != 0, i&4 != 0, i&8 != 0
		q := `SELECT key, value, child IS NOT NULL FROM kv WHERE bucket = $1`
		limit := "$2"
		if from {
			op := map[[2]bool]string{{true, true}: ">=", {true, false}: ">", {false, true}: "<=", {false, false}: "<"}[[2]bool{forward, inclusive}]
			q += ` AND key ` + op + ` $2`
			limit = "$3"
		}
		if buckets {
			q += ` AND child IS NOT NULL`
		}
		order := "ASC"
		if !forward {
			order = "DESC"
		}
		qs[i] = q + ` ORDER BY key ` + order + ` LIMIT ` + limit
	}
	return qs
}()

func queryIndex(forward, from, inclusive, buckets bool) int {
	i := 0
	for bit, on := range []bool{forward, from, inclusive, buckets} {
		if on {
			i |= 1 << bit
		}
	}
	return i
}
