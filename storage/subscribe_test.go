package storage_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/cutroom/cutroom/internal/pgtest"
	"github.com/cutroom/cutroom/storage"
)

// quiet reads ch until nothing arrives for a while (a subscription may start with a
// signal: it says only that something may have changed).
func quiet(t *testing.T, ch <-chan struct{}) {
	t.Helper()
	for {
		select {
		case _, ok := <-ch:
			if !ok {
				t.Fatal("the subscription closed")
			}
		case <-time.After(300 * time.Millisecond):
			return
		}
	}
}

// signalled fails the test unless ch receives within 10 s.
func signalled(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case _, ok := <-ch:
		if !ok {
			t.Fatalf("%s: the subscription closed", what)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("%s: no signal within 10 s", what)
	}
}

// TestSubscribe: a write wakes a subscriber of the same DB, on each engine; the channel
// closes when its context ends.
func TestSubscribe(t *testing.T) {
	eachEngine(t, func(t *testing.T, engine string) {
		db := storage.OpenEngine(t, engine, nil)
		ctx, cancel := context.WithCancel(context.Background())
		ch := db.Subscribe(ctx)
		quiet(t, ch)
		if _, err := db.CreateWorkspace(storage.WorkspaceInput{Name: "w"}); err != nil {
			t.Fatal(err)
		}
		signalled(t, ch, "a local write")
		cancel()
		deadline := time.After(5 * time.Second)
		for {
			select {
			case _, ok := <-ch:
				if !ok {
					return
				}
			case <-deadline:
				t.Fatal("the channel stayed open after its context ended")
			}
		}
	})
}

// TestSubscribeAcrossNodes: a write on one PostgreSQL node wakes a subscriber of another,
// also after the subscriber's listening connection was cut (it reconnects).
func TestSubscribeAcrossNodes(t *testing.T) {
	url := pgtest.URL(t)
	a, b := storage.OpenPostgresURL(t, url, nil), storage.OpenPostgresURL(t, url, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch := b.Subscribe(ctx)
	quiet(t, ch)
	if _, err := a.CreateWorkspace(storage.WorkspaceInput{Name: "w1"}); err != nil {
		t.Fatal(err)
	}
	signalled(t, ch, "another node's write")

	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var cut int
	if err := conn.QueryRow(ctx, `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
		WHERE application_name = 'cutroom-listen' AND datname = current_database()`).Scan(&cut); err != nil || cut != 1 {
		t.Fatalf("cut %d listening connections (%v), want 1", cut, err)
	}
	signalled(t, ch, "the cut connection") // missed notifications: the subscriber reads again
	listening(t, conn, 1)                  // the listener is back
	quiet(t, ch)
	if _, err := a.CreateWorkspace(storage.WorkspaceInput{Name: "w2"}); err != nil {
		t.Fatal(err)
	}
	signalled(t, ch, "another node's write after the reconnection")
}

// listening waits until want listening connections wait for notifications on conn's
// database.
func listening(t *testing.T, conn *pgx.Conn, want int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for n := 0; n != want; {
		if time.Now().After(deadline) {
			t.Fatalf("%d listening connections after 10 s, want %d", n, want)
		}
		time.Sleep(50 * time.Millisecond)
		if err := conn.QueryRow(context.Background(), `SELECT count(*) FROM pg_stat_activity
			WHERE application_name = 'cutroom-listen' AND datname = current_database() AND state = 'idle'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
	}
}

// TestSubscribeOwnCommitOnce: on PostgreSQL a node's own commit signals its subscribers
// once (the local signal), not a second time when its notification comes back through the
// listening connection; another node's subscriber still gets it.
func TestSubscribeOwnCommitOnce(t *testing.T) {
	url := pgtest.URL(t)
	a, b := storage.OpenPostgresURL(t, url, nil), storage.OpenPostgresURL(t, url, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	own, other := a.Subscribe(ctx), b.Subscribe(ctx)
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	listening(t, conn, 2)
	quiet(t, own)
	quiet(t, other)
	for i := range 5 {
		if _, err := a.CreateWorkspace(storage.WorkspaceInput{Name: fmt.Sprintf("w%d", i)}); err != nil {
			t.Fatal(err)
		}
		signalled(t, own, "the node's own write")
		signalled(t, other, "another node's write")
		select {
		case <-own:
			t.Fatalf("write %d: a second signal for the node's own write", i)
		case <-time.After(300 * time.Millisecond):
		}
	}
}

// TestSubscribeOutlastsItsWaits: the listening connection waits for notifications in
// bounded waits and pings between them (so a silent server is noticed); a live server
// keeps the same connection across them, and notifications still arrive.
func TestSubscribeOutlastsItsWaits(t *testing.T) {
	storage.SetListenWait(t, 50*time.Millisecond)
	url := pgtest.URL(t)
	a, b := storage.OpenPostgresURL(t, url, nil), storage.OpenPostgresURL(t, url, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch := b.Subscribe(ctx)
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	listener := func() (pids []int) {
		rows, err := conn.Query(ctx, `SELECT pid FROM pg_stat_activity
			WHERE application_name = 'cutroom-listen' AND datname = current_database()`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			var pid int
			if err := rows.Scan(&pid); err != nil {
				t.Fatal(err)
			}
			pids = append(pids, pid)
		}
		return pids
	}
	deadline := time.Now().Add(10 * time.Second)
	for len(listener()) != 1 {
		if time.Now().After(deadline) {
			t.Fatal("no listening connection within 10 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	first := listener()
	time.Sleep(500 * time.Millisecond) // ten waits
	if now := listener(); len(now) != 1 || now[0] != first[0] {
		t.Fatalf("listening connections %v after ten waits, want the same one %v", now, first)
	}
	quiet(t, ch)
	if _, err := a.CreateWorkspace(storage.WorkspaceInput{Name: "w"}); err != nil {
		t.Fatal(err)
	}
	signalled(t, ch, "another node's write after ten waits")
}
