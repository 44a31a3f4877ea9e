package export_test

import (
	"strings"
	"testing"
	"time"

	"github.com/cutroom/cutroom/internal/pgtest"
	"github.com/cutroom/cutroom/model"
)

// A node that starts while PostgreSQL is down (restarting, unreachable) fails its read of
// the tasks to requeue: it logs that and runs on, and once the database answers again its
// polls put back the task its crashed previous run left PROCESSING (once the lease ran
// out), which it then renders to the end.
func TestLeasesStartWhileTheDatabaseIsDown(t *testing.T) {
	const ttl = 500 * time.Millisecond
	ns := newNodes(t, "postgres")
	before := ns.start(t, "node-a", 1, newCounted(20*time.Millisecond), ttl)
	id := ns.create(t, before, 2, before) // 60 frames: 1.2 s
	leased(t, ns.db, before, []string{id}, 1)
	before.crash() // PROCESSING under node-a's lease, which is no longer renewed

	// The restarted node: its service is made (New reads the change log) before the
	// database goes down, and its scheduler starts while it is down.
	after := ns.node(t, "node-a", 1, newCounted(20*time.Millisecond), ttl)
	up := pgtest.Down(t)
	after.run(t)
	const logged = "export: requeue tasks at start; the polls carry on"
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(ns.log.String(), logged) {
		if time.Now().After(deadline) {
			t.Fatalf("no %q within 20 s:\n%s", logged, ns.log.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(2 * ttl) // the polls meet the database down too; the lease runs out meanwhile
	select {
	case <-after.done:
		t.Fatalf("the scheduler stopped while the database was down: %v", after.err)
	default:
	}
	up()

	tk := waitStatus(t, ns.db, id, 30*time.Second, func(tk model.ExportTask) bool { return !tk.Active() })
	if tk.Status != model.StatusCompleted || tk.Crashes != 1 || after.r.started(id) != 1 {
		t.Fatalf("task %s: %s (%v), crashes %d, renders after the restart %d; want COMPLETED, 1, 1",
			id, tk.Status, tk.Error, tk.Crashes, after.r.started(id))
	}
}
