package storage

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestEnginesAgree runs the same random transactions through the key-value layer of bbolt
// and of PostgreSQL and compares everything each engine then shows: every bucket, nested
// bucket, key, value and sequence, walked with ForEach and with cursors (First/Next,
// Last/Prev, Seek from random keys, a cursor deleting as it goes, a Put in the middle of a
// walk), getMany and nestedKeys. Keys are short over a few bytes (0x00, 0x01, 'a', 0xff) so
// byte order, prefixes and empty values are covered; one bucket grows past the cursors'
// largest batch.
func TestEnginesAgree(t *testing.T) {
	bolt := OpenEngine(t, "bbolt", nil)
	pg := OpenEngine(t, "postgres", nil)
	rng := rand.New(rand.NewPCG(1, 2))
	key := func() []byte {
		k := make([]byte, 1+rng.IntN(3))
		for i := range k {
			k[i] = []byte{0x00, 0x01, 'a', 0xff}[rng.IntN(4)]
		}
		return k
	}
	tops := [][]byte{[]byte("kvtest_a"), []byte("kvtest_b")}
	type op func(tx Tx) (string, error)
	ops := []op{
		func(tx Tx) (string, error) { // put in a top-level bucket
			b, err := tx.CreateBucketIfNotExists(tops[rng.IntN(2)])
			if err != nil {
				return "", err
			}
			v := []byte(fmt.Sprint(rng.IntN(100)))
			if rng.IntN(5) == 0 {
				v = nil // an empty value
			}
			k := key()
			if b.Bucket(k) != nil {
				return "bucket", nil // a Put there is a defect, which the engines report differently
			}
			return "", b.Put(k, v)
		},
		func(tx Tx) (string, error) { // put in a nested bucket, made if needed
			b, err := tx.CreateBucketIfNotExists(tops[0])
			if err != nil {
				return "", err
			}
			n, err := b.CreateBucketIfNotExists(key())
			if err != nil {
				return "incompatible", nil // the key holds a value
			}
			return "", n.Put(key(), []byte("n"))
		},
		func(tx Tx) (string, error) { // delete a key
			b := tx.Bucket(tops[rng.IntN(2)])
			if b == nil {
				return "nil", nil
			}
			k := key()
			if b.Bucket(k) != nil {
				return "bucket", nil // a Delete there is a defect, which the engines report differently
			}
			return "", b.Delete(k)
		},
		func(tx Tx) (string, error) { // delete a nested bucket
			b := tx.Bucket(tops[0])
			if b == nil {
				return "nil", nil
			}
			return fmt.Sprint(b.DeleteBucket(key()) != nil), nil
		},
		func(tx Tx) (string, error) { // sequences
			b, err := tx.CreateBucketIfNotExists(tops[1])
			if err != nil {
				return "", err
			}
			s, err := b.NextSequence()
			return fmt.Sprint(s, b.Sequence()), err
		},
		func(tx Tx) (string, error) { // a walk that deletes every other key by its cursor
			b := tx.Bucket(tops[1])
			if b == nil {
				return "nil", nil
			}
			var seen []string
			c := b.Cursor()
			k, _ := c.Seek(key())
			for i := 1; k != nil; i++ {
				seen = append(seen, fmt.Sprintf("%x", k))
				if i%2 == 1 {
					k, _ = c.Next()
					continue
				}
				if err := c.Delete(); err != nil {
					return "", err
				}
				k, _ = c.Seek(k) // after a Delete, bbolt's Next skips a key: Seek on
			}
			return strings.Join(seen, ","), nil
		},
		func(tx Tx) (string, error) { // a walk backward with a Put in its middle
			b := tx.Bucket(tops[0])
			if b == nil {
				return "nil", nil
			}
			var seen []string
			c := b.Cursor()
			for k, v := c.Last(); k != nil; k, v = c.Prev() {
				seen = append(seen, fmt.Sprintf("%x=%x/%v", k, v, v == nil))
				if len(seen) == 3 && v != nil {
					if err := b.Put(k, []byte("changed")); err != nil {
						return "", err
					}
				}
			}
			return strings.Join(seen, ","), nil
		},
	}
	for round := range 150 {
		seed := rng.Uint64()
		var results [2][]string
		for i, db := range []*DB{bolt, pg} {
			r := rand.New(rand.NewPCG(seed, 0))
			rng = r // the ops draw from the round's generator, the same on both engines
			err := db.update(func(tx Tx) error {
				results[i] = nil
				for range 1 + r.IntN(5) {
					out, err := ops[r.IntN(len(ops))](tx)
					if err != nil {
						return err
					}
					results[i] = append(results[i], out)
				}
				return nil
			})
			if err != nil {
				t.Fatalf("round %d on %s: %v", round, db.Engine(), err)
			}
		}
		if !slices.Equal(results[0], results[1]) {
			t.Fatalf("round %d: the engines answered differently:\nbbolt    %q\npostgres %q", round, results[0], results[1])
		}
		rng = rand.New(rand.NewPCG(seed, 1))
		seeks := [][]byte{key(), key(), key(), {0x00}, {0xff, 0xff, 0xff, 0xff}}
		if a, b := dumpKV(t, bolt, seeks), dumpKV(t, pg, seeks); a != b {
			t.Fatalf("round %d: the engines hold different data:\nbbolt:\n%s\npostgres:\n%s", round, a, b)
		}
	}
	// A bucket larger than the cursors' largest batch, walked both ways.
	for _, db := range []*DB{bolt, pg} {
		if err := db.update(func(tx Tx) error {
			b, err := tx.CreateBucketIfNotExists([]byte("kvtest_big"))
			if err != nil {
				return err
			}
			for i := range 2*cursorMaxBatch + 7 {
				if err := b.Put(fmt.Appendf(nil, "%06d", i), bytes.Repeat([]byte{'v'}, i%50)); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	seeks := [][]byte{[]byte("000500"), []byte("001023x"), []byte("9")}
	if a, b := dumpKV(t, bolt, seeks), dumpKV(t, pg, seeks); a != b {
		t.Fatalf("a large bucket: the engines differ (%d and %d bytes of dump)", len(a), len(b))
	}
}

// dumpKV describes every bucket of the test (kvtest_*) in a read transaction: keys and
// values by ForEach, nested buckets recursively, sequences, and cursor walks.
func dumpKV(t *testing.T, db *DB, seeks [][]byte) string {
	t.Helper()
	var sb strings.Builder
	var dump func(indent string, b Bucket)
	dump = func(indent string, b Bucket) {
		fmt.Fprintf(&sb, "%sseq %d\n", indent, b.Sequence())
		keys := append(slices.Clone(seeks), []byte("absent"))
		_ = b.ForEach(func(k, _ []byte) error { keys = append(keys, bytes.Clone(k)); return nil })
		fmt.Fprintf(&sb, "%sgetMany %x\n", indent, getMany(b, keys))
		nested, err := nestedKeys(b)
		fmt.Fprintf(&sb, "%snestedKeys %x %v\n", indent, nested, err)
		_ = b.ForEach(func(k, v []byte) error {
			fmt.Fprintf(&sb, "%s%x=%x/%v\n", indent, k, v, v == nil)
			if v == nil {
				dump(indent+"  ", b.Bucket(k))
			}
			return nil
		})
		_ = b.ForEachBucket(func(k []byte) error { fmt.Fprintf(&sb, "%sbucket %x\n", indent, k); return nil })
		c := b.Cursor()
		sb.WriteString(indent + "backward")
		for k, _ := c.Last(); k != nil; k, _ = c.Prev() {
			fmt.Fprintf(&sb, " %x", k)
		}
		sb.WriteString("\n")
		for _, s := range seeks {
			k, v := c.Seek(s)
			fmt.Fprintf(&sb, "%sseek %x: %x=%x", indent, s, k, v)
			k, _ = c.Next()
			fmt.Fprintf(&sb, " next %x", k)
			k, _ = c.Prev()
			k2, _ := c.Prev()
			fmt.Fprintf(&sb, " prev %x %x\n", k, k2)
		}
		k, _ := c.First()
		k2, _ := c.Prev()
		fmt.Fprintf(&sb, "%sfirst %x prev %x\n", indent, k, k2)
	}
	if err := db.view(func(tx Tx) error {
		return tx.ForEach(func(name []byte, b Bucket) error {
			if bytes.HasPrefix(name, []byte("kvtest_")) {
				fmt.Fprintf(&sb, "%s\n", name)
				dump("  ", b)
			}
			return nil
		})
	}); err != nil {
		t.Fatal(err)
	}
	return sb.String()
}

// TestManyWritesInOneTransaction: a transaction that writes far more than a batch holds to
// one bucket without reading it (what Copy does) sends its writes as it goes, in bounded
// batches, and commits every one of them: the bucket holds each key with its value, and a
// Put of a nested bucket's key still fails the transaction.
func TestManyWritesInOneTransaction(t *testing.T) {
	for _, engine := range []string{"bbolt", "postgres"} {
		t.Run(engine, func(t *testing.T) {
			db := OpenEngine(t, engine, nil)
			const n = 3*maxPendingWrites + 7
			value := bytes.Repeat([]byte("v"), 16<<10) // past maxPendingBytes within the run
			err := db.update(func(tx Tx) error {
				b, err := tx.CreateBucketIfNotExists([]byte("kvtest_many"))
				if err != nil {
					return err
				}
				for i := range n {
					if err := b.Put([]byte(fmt.Sprintf("%06d", i)), value); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			count := 0
			err = db.view(func(tx Tx) error {
				return tx.Bucket([]byte("kvtest_many")).ForEach(func(k, v []byte) error {
					if !bytes.Equal(v, value) {
						return fmt.Errorf("key %s: %d bytes", k, len(v))
					}
					count++
					return nil
				})
			})
			if err != nil || count != n {
				t.Fatalf("%d of %d keys read back (%v)", count, n, err)
			}
		})
	}
}
