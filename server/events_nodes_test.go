package server_test

import (
	"net/http/httptest"
	"reflect"
	"testing"
	"time"

	"github.com/cutroom/cutroom/internal/ssetest"
)

// TestEventsAcrossNodes: two API nodes over one database (one bbolt file; one PostgreSQL
// database, each node with its own connections), each with its own scheduler and server. A
// stream on node B sees every change of the tasks created, rendered and canceled through
// node A, in order, none missing or repeated, with the same ids and data as a stream on
// node A; a client that drops its stream on A and reconnects to B with Last-Event-ID
// resumes exactly after it; another workspace's stream on either node sees none of it. A
// third node, C, started afterwards with a short EventBuffer, trims the database's change
// log to it; an id older than C holds resyncs from the current state there, while a newer
// one, handed out before C started, resumes.
func TestEventsAcrossNodes(t *testing.T) {
	for _, engine := range []string{"bbolt", "postgres"} {
		t.Run(engine, func(t *testing.T) { testEventsAcrossNodes(t, engine == "postgres") })
	}
}

func testEventsAcrossNodes(t *testing.T, postgres bool) {
	const cBuffer = 64
	a := newExportEnv(t, exportOpts{workers: 1, maxActive: 20, progress: time.Nanosecond, frameDelay: 2 * time.Millisecond,
		eventPoll: 20 * time.Millisecond, postgres: postgres}) // on bbolt the poll brings the other node's changes
	b := newExportEnv(t, exportOpts{workers: 1, maxActive: 20, progress: time.Nanosecond, frameDelay: 2 * time.Millisecond,
		eventPoll: 20 * time.Millisecond, nodeOf: a})
	tsA, tsB := httptest.NewServer(a.h), httptest.NewServer(b.h)
	defer tsA.Close()
	defer tsB.Close()
	onA, _ := openStream(t, tsA.URL, a.keyA, "")
	defer onA.Close()
	onB, _ := openStream(t, tsB.URL, a.keyA, "")
	defer onB.Close()
	otherB, _ := openStream(t, tsB.URL, a.keyB, "")
	defer otherB.Close()
	// The client that moves from A to B.
	mover, _ := openStream(t, tsA.URL, a.keyA, "")
	defer func() { mover.Close() }()

	var ids []string
	for range 3 {
		r := a.do("POST", "/v1/exports", a.keyA, progressBody())
		if r.Status != 201 {
			t.Fatalf("create on A: %d %s", r.Status, r.Body)
		}
		ids = append(ids, r.Data()["taskId"].(string))
	}
	canceled, done := ids[2], ids[:2]
	a.waitTask(a.keyA, canceled, 30*time.Second, statusIs("PROCESSING"))
	if r := a.do("DELETE", "/v1/exports/"+canceled, a.keyA, nil); r.Status != 200 {
		t.Fatalf("cancel on A: %d %s", r.Status, r.Body)
	}

	// The mover reads 30 changes on A, then goes on on B from its last id.
	moved := newTaskLog()
	var lastID string
	for range 30 {
		ev, _ := mover.Next(t, 10*time.Second)
		moved.add(t, ev)
		lastID = ev.ID
	}
	mover.Close()
	time.Sleep(100 * time.Millisecond) // changes happen while it is away
	mover, _ = openStream(t, tsB.URL, a.keyA, lastID)

	// Each stream until both tasks completed and the canceled one shows CANCELED.
	finished := func(l *taskLog) bool { return l.done(done) && l.status[canceled] == "CANCELED" }
	read := func(s *ssetest.Stream, l *taskLog) []ssetest.Event {
		var evs []ssetest.Event
		for !finished(l) {
			ev, ok := s.Next(t, 20*time.Second)
			if !ok {
				t.Fatal("a stream ended early")
			}
			l.add(t, ev)
			evs = append(evs, ev)
		}
		return evs
	}
	logA, logB := newTaskLog(), newTaskLog()
	evsA, evsB := read(onA, logA), read(onB, logB)
	read(mover, moved)
	for _, l := range []*taskLog{logA, logB, moved} {
		l.complete(t, done)
	}
	if len(evsA) != len(evsB) {
		t.Fatalf("node A's stream had %d changes, node B's %d", len(evsA), len(evsB))
	}
	for i := range evsA {
		if evsA[i].ID != evsB[i].ID || !reflect.DeepEqual(evsA[i].Task, evsB[i].Task) {
			t.Fatalf("change %d: on A %s %v, on B %s %v", i, evsA[i].ID, evsA[i].Task, evsB[i].ID, evsB[i].Task)
		}
	}
	if seqOf(t, evsA[0].ID) != 1 || logA.lastSeq != uint64(len(evsA)) || moved.lastSeq != logA.lastSeq {
		t.Fatalf("ids: first %s, last %d of %d changes, the mover's last %d", evsA[0].ID, logA.lastSeq, len(evsA), moved.lastSeq)
	}
	// The last change is the task as GET on either node shows it.
	for _, n := range []*exportEnv{a, b} {
		if got := n.do("GET", "/v1/exports/"+done[0], a.keyA, nil).Data(); got["status"] != "COMPLETED" || got["outputUrl"] != logB.last[done[0]]["outputUrl"] {
			t.Fatalf("GET %v, last change %v", got, logB.last[done[0]])
		}
	}

	// A third node, C, keeps a short log: it trims the database's to its buffer, and an id
	// before what it holds resyncs.
	c := newExportEnv(t, exportOpts{eventBuffer: cBuffer, eventPoll: 20 * time.Millisecond, nodeOf: a})
	tsC := httptest.NewServer(c.h)
	defer tsC.Close()
	deadline := time.Now().Add(5 * time.Second)
	for {
		l, err := a.db.TaskChanges(0, 0)
		if err != nil {
			t.Fatal(err)
		}
		if l.Oldest > 1 && l.Last-l.Oldest+1 <= cBuffer+cBuffer/4 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the change log was not trimmed: oldest %d last %d", l.Oldest, l.Last)
		}
		time.Sleep(20 * time.Millisecond)
	}
	old, _ := openStream(t, tsC.URL, a.keyA, evsA[0].ID)
	defer old.Close()
	seen := map[string]string{}
	for range ids {
		ev, _ := old.Next(t, 5*time.Second)
		seen[ev.Task["taskId"].(string)] = ev.Task["status"].(string)
		if seqOf(t, ev.ID) != logA.lastSeq {
			t.Fatalf("a resync event has id %s, want the last change's sequence %d", ev.ID, logA.lastSeq)
		}
	}
	if want := map[string]string{done[0]: "COMPLETED", done[1]: "COMPLETED", canceled: "CANCELED"}; !reflect.DeepEqual(seen, want) {
		t.Fatalf("resync sent %v, want %v", seen, want)
	}

	// C started after these changes and resumes an id of one of them.
	recent, _ := openStream(t, tsC.URL, a.keyA, evsA[len(evsA)-11].ID)
	defer recent.Close()
	for _, want := range evsA[len(evsA)-10:] {
		ev, _ := recent.Next(t, 5*time.Second)
		if ev.ID != want.ID || !reflect.DeepEqual(ev.Task, want.Task) {
			t.Fatalf("C resumed with %s %v, want %s %v", ev.ID, ev.Task, want.ID, want.Task)
		}
	}

	// Workspace b saw nothing; its own task, created on A, reaches its stream on B only.
	r := a.do("POST", "/v1/exports", a.keyB, progressBody())
	if r.Status != 201 {
		t.Fatalf("create in b: %d %s", r.Status, r.Body)
	}
	ev, _ := otherB.Next(t, 5*time.Second)
	if ev.Task["taskId"] != r.Data()["taskId"] || ev.Task["status"] != "PENDING" {
		t.Fatalf("workspace b's first event: %+v", ev)
	}
	for _, s := range []*ssetest.Stream{onA, onB} {
		select {
		case ev := <-s.Events():
			if ev.Comment == "" && ev.Task["taskId"] == r.Data()["taskId"] {
				t.Fatalf("workspace a's stream received b's task: %+v", ev)
			}
		case <-time.After(200 * time.Millisecond):
		}
	}
}
