// Command cluster measures the object-store transfers of a clustered export on this machine:
// an embedded NATS server (cluster.StartEmbedded, JetStream on a temporary directory, over
// loopback TCP with the token), the scene's assets put once and fetched once (what a worker
// fetches on its first segment of a task), and a rendered file (-file, the joined export
// bench/segments leaves) cut into -segments objects, each put (a worker's upload) and all
// fetched (the coordinator's downloads before the join). It prints the seconds of each, for
// bench/cluster.sh's projection.
//
//	go run -tags extlib,pkgconfig ./bench/cluster -file bench/out/segments-joined.mp4 -segments 6
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/cutroom/cutroom/cluster"
	"github.com/nats-io/nats.go/jetstream"
)

func main() {
	file := flag.String("file", "bench/out/segments-joined.mp4", "a rendered export to cut into segment objects")
	segments := flag.Int("segments", 6, "segments the export is cut into")
	assetDir := flag.String("assets", "bench/assets", "the scene's assets")
	flag.Parse()
	if err := run(*file, *segments, *assetDir); err != nil {
		log.Fatal(err)
	}
}

func run(file string, segments int, assetDir string) error {
	dir, err := os.MkdirTemp("", "cutroom-bench-cluster")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	const token = "bench-cluster-token-0123456789"
	emb, err := cluster.StartEmbedded("127.0.0.1:0", token, dir)
	if err != nil {
		return err
	}
	defer emb.Shutdown()
	nc, err := cluster.Connect(cluster.ConnConfig{URLs: []string{"nats://" + emb.Addr()}, Token: token})
	if err != nil {
		return err
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return err
	}
	ctx := context.Background()
	objs, err := js.CreateOrUpdateObjectStore(ctx, jetstream.ObjectStoreConfig{Bucket: "bench", Storage: jetstream.FileStorage})
	if err != nil {
		return err
	}
	var assetBlobs [][]byte
	names, _ := filepath.Glob(filepath.Join(assetDir, "*"))
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			return err
		}
		assetBlobs = append(assetBlobs, b)
	}
	video, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	per := (len(video) + segments - 1) / segments
	var segBlobs [][]byte
	for off := 0; off < len(video); off += per {
		segBlobs = append(segBlobs, video[off:min(off+per, len(video))])
	}
	putA, getA, err := transfer(ctx, objs, "asset", assetBlobs)
	if err != nil {
		return err
	}
	putS, getS, err := transfer(ctx, objs, "segment", segBlobs)
	if err != nil {
		return err
	}
	fmt.Printf("assets: %d files, %d bytes: put %.3f s, get %.3f s\n", len(assetBlobs), total(assetBlobs), putA, getA)
	fmt.Printf("segments: %d objects, %d bytes: put %.3f s (one: %.3f s), get all %.3f s\n", len(segBlobs), len(video), putS, putS/float64(len(segBlobs)), getS)
	// the machine-readable line bench/cluster.sh reads
	fmt.Printf("TRANSFER asset_get=%.4f segment_put=%.4f segments_get=%.4f\n", getA, putS/float64(len(segBlobs)), getS)
	return nil
}

func total(bs [][]byte) (n int) {
	for _, b := range bs {
		n += len(b)
	}
	return n
}

// transfer puts every blob, then gets every one back, and returns both times.
func transfer(ctx context.Context, objs jetstream.ObjectStore, prefix string, blobs [][]byte) (put, get float64, err error) {
	start := time.Now()
	for i, b := range blobs {
		if _, err := objs.Put(ctx, jetstream.ObjectMeta{Name: fmt.Sprintf("%s-%d", prefix, i)}, bytes.NewReader(b)); err != nil {
			return 0, 0, err
		}
	}
	put = time.Since(start).Seconds()
	start = time.Now()
	for i, b := range blobs {
		r, err := objs.Get(ctx, fmt.Sprintf("%s-%d", prefix, i))
		if err != nil {
			return 0, 0, err
		}
		n, err := io.Copy(io.Discard, r)
		r.Close()
		if err != nil || n != int64(len(b)) {
			return 0, 0, fmt.Errorf("get %s-%d: %d bytes, %v", prefix, i, n, err)
		}
	}
	return put, time.Since(start).Seconds(), nil
}
