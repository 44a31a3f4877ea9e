package cluster_test

import (
	"context"
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cutroom/cutroom/cluster"
	"github.com/cutroom/cutroom/export"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go/jetstream"
)

// TestReplicas: on a NATS cluster of three, a coordinator started with Replicas 3 makes the
// render queue, the segment records and the segment objects with three copies, and a node
// started later with Replicas 0 keeps them (every start updates the resources: it put an
// operator's replicas back to 1 before).
func TestReplicas(t *testing.T) {
	urls := natsCluster(t, 3)
	replicas := func() map[string]int {
		nc := connectTo(t, urls)
		js, err := jetstream.New(nc)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]int{}
		for _, name := range []string{cluster.StreamName, "KV_" + cluster.BucketName, "OBJ_" + cluster.ObjectsName} {
			st, err := js.Stream(context.Background(), name)
			if err != nil {
				t.Fatal(err)
			}
			got[name] = st.CachedInfo().Config.Replicas
		}
		return got
	}
	for _, start := range []struct{ replicas, want int }{{3, 3}, {0, 3}, {1, 1}, {0, 1}} {
		_, err := cluster.NewCoordinator(context.Background(), cluster.CoordinatorConfig{Conn: connectTo(t, urls),
			Secret: testSecret, Replicas: start.replicas,
			Join: func(context.Context, export.RenderJob, cluster.Encoding, []cluster.Segment, []string) error {
				return nil
			},
			AssetFiles: func(context.Context, export.RenderJob) (cluster.Files, error) { return cluster.Files{}, nil }})
		if err != nil {
			t.Fatalf("a coordinator with Replicas %d: %v", start.replicas, err)
		}
		for name, n := range replicas() {
			if n != start.want {
				t.Errorf("after a start with Replicas %d: %s has %d replicas, want %d", start.replicas, name, n, start.want)
			}
		}
	}
}

// natsCluster starts n NATS servers with JetStream clustered on loopback and returns their
// client URLs once JetStream has a leader.
func natsCluster(t *testing.T, n int) []string {
	t.Helper()
	ports := make([]int, n)
	for i := range ports {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ports[i] = l.Addr().(*net.TCPAddr).Port
		l.Close()
	}
	var routes []string
	for _, p := range ports {
		routes = append(routes, fmt.Sprintf("nats-route://127.0.0.1:%d", p))
	}
	var urls []string
	var servers []*server.Server
	for i := range n {
		opts := &server.Options{ServerName: fmt.Sprintf("n%d", i), Host: "127.0.0.1", Port: server.RANDOM_PORT,
			Authorization: testToken, JetStream: true, StoreDir: filepath.Join(t.TempDir(), "js"), NoSigs: true, NoLog: true,
			Cluster: server.ClusterOpts{Name: "cutroom-test", Host: "127.0.0.1", Port: ports[i]},
			Routes:  server.RoutesFromStr(strings.Join(routes, ","))}
		srv, err := server.NewServer(opts)
		if err != nil {
			t.Fatal(err)
		}
		go srv.Start()
		t.Cleanup(srv.Shutdown)
		servers = append(servers, srv)
	}
	for _, srv := range servers {
		if !srv.ReadyForConnections(10 * time.Second) {
			t.Fatal("a NATS server of the cluster is not ready")
		}
		urls = append(urls, srv.ClientURL())
	}
	deadline := time.Now().Add(30 * time.Second)
	for !anyLeader(servers) {
		if time.Now().After(deadline) {
			t.Fatal("the NATS cluster elected no JetStream leader within 30 s")
		}
		time.Sleep(50 * time.Millisecond)
	}
	return urls
}

func anyLeader(servers []*server.Server) bool {
	for _, s := range servers {
		if s.JetStreamIsLeader() {
			return true
		}
	}
	return false
}

func connectTo(t *testing.T, urls []string) *cluster.Conn {
	t.Helper()
	nc, err := cluster.Connect(cluster.ConnConfig{URLs: urls, Token: testToken})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	return nc
}
