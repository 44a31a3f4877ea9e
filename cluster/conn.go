package cluster

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Names of the JetStream resources (see the package doc).
const (
	StreamName   = "CUTROOM_SEGMENTS"
	ConsumerName = "workers"
	BucketName   = "cutroom-segments"
	ObjectsName  = "cutroom-objects"
	subjectBase  = "cutroom.segments"
)

// Defaults.
const (
	// DefaultAckWait is how long a job may go without a sign of life from its worker before
	// JetStream hands it to another (workers signal every third of it while rendering).
	DefaultAckWait = 30 * time.Second
	// DefaultSegmentSeconds is the longest export rendered in one piece (--segment-seconds).
	DefaultSegmentSeconds = 10.0
	// DefaultAttempts is how many times a failing segment is rendered before its task fails.
	DefaultAttempts = 3
	// CrashDeliveries is how many times a job may be handed out without finishing (its
	// workers stopped or died) before its task fails.
	CrashDeliveries = 10
	// DefaultObjectTTL is how long the object store keeps an object no export has used.
	DefaultObjectTTL = 7 * 24 * time.Hour
	// recordTTL is how long done, fail and cancel records are kept.
	recordTTL = 24 * time.Hour
)

// ErrRefused is a connection the NATS server refused for its credentials.
var ErrRefused = errors.New("the NATS server refused the credentials: --cluster-token (or --nats-creds) does not match the server's")

// ConnConfig says how to reach the NATS servers.
type ConnConfig struct {
	// URLs are the servers (nats://host:port), tried in turn.
	URLs []string
	// Token is the shared secret (--cluster-token); Creds a NATS credentials file
	// (--nats-creds). Either or both may be set.
	Token, Creds string
	// Name names the connection in the server's monitoring.
	Name string
	// Embedded, when set, is dialled in-process (URLs are then not used).
	Embedded *Embedded
}

// Conn is a connection to NATS (the App holds it without importing NATS).
type Conn = nats.Conn

// Connect opens a connection to NATS; a refused token or credential is ErrRefused.
func Connect(cfg ConnConfig) (*nats.Conn, error) {
	opts := []nats.Option{nats.Name(cfg.Name), nats.MaxReconnects(-1),
		nats.ReconnectWait(500 * time.Millisecond)}
	if cfg.Embedded != nil {
		opts = append(opts, nats.InProcessServer(cfg.Embedded.srv))
		cfg.URLs = []string{"nats://" + cfg.Embedded.Addr()}
	}
	if cfg.Token != "" {
		opts = append(opts, nats.Token(cfg.Token))
	}
	if cfg.Creds != "" {
		opts = append(opts, nats.UserCredentials(cfg.Creds))
	}
	nc, err := nats.Connect(strings.Join(cfg.URLs, ","), opts...)
	if err != nil {
		if errors.Is(err, nats.ErrAuthorization) || strings.Contains(strings.ToLower(err.Error()), "authorization") {
			return nil, fmt.Errorf("%w (%v)", ErrRefused, err)
		}
		return nil, fmt.Errorf("connect to NATS %s: %w", strings.Join(cfg.URLs, ","), err)
	}
	return nc, nil
}

// resources are the JetStream resources a coordinator or a worker uses.
type resources struct {
	js      jetstream.JetStream
	stream  jetstream.Stream
	cons    jetstream.Consumer
	kv      jetstream.KeyValue
	objects jetstream.ObjectStore
}

// create makes (or updates) the stream, the consumer, the bucket and the object store: the
// coordinator's part. replicas is Config.Replicas: 0 keeps each existing resource's.
func create(ctx context.Context, nc *nats.Conn, ackWait, objectTTL time.Duration, replicas int) (*resources, error) {
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, err
	}
	r := &resources{js: js}
	if r.stream, err = js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{Name: StreamName,
		Subjects: []string{subjectBase + ".>"}, Retention: jetstream.WorkQueuePolicy,
		Storage: jetstream.FileStorage, Duplicates: 10 * time.Minute,
		Replicas: replicasOf(ctx, js, StreamName, replicas)}); err != nil {
		return nil, fmt.Errorf("stream %s: %w", StreamName, err)
	}
	if r.cons, err = r.stream.CreateOrUpdateConsumer(ctx, jetstream.ConsumerConfig{Durable: ConsumerName,
		AckPolicy: jetstream.AckExplicitPolicy, AckWait: ackWait, MaxDeliver: -1, MaxAckPending: 10000}); err != nil {
		return nil, fmt.Errorf("consumer %s: %w", ConsumerName, err)
	}
	if r.kv, err = js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: BucketName,
		TTL: recordTTL, Storage: jetstream.FileStorage,
		Replicas: replicasOf(ctx, js, "KV_"+BucketName, replicas)}); err != nil {
		return nil, fmt.Errorf("bucket %s: %w", BucketName, err)
	}
	if r.objects, err = js.CreateOrUpdateObjectStore(ctx, jetstream.ObjectStoreConfig{Bucket: ObjectsName,
		TTL: objectTTL, Storage: jetstream.FileStorage,
		Replicas: replicasOf(ctx, js, "OBJ_"+ObjectsName, replicas)}); err != nil {
		return nil, fmt.Errorf("object store %s: %w", ObjectsName, err)
	}
	return r, nil
}

// replicasOf is the replicas to give the stream named stream (a key-value bucket's is
// KV_<bucket>, an object store's OBJ_<bucket>): want when set, else what the stream has
// now, else 1. Every start of a coordinator updates the resources with this configuration,
// so without it a node's start put an operator's replicas back to 1.
func replicasOf(ctx context.Context, js jetstream.JetStream, stream string, want int) int {
	if want > 0 {
		return want
	}
	if st, err := js.Stream(ctx, stream); err == nil {
		return max(1, st.CachedInfo().Config.Replicas)
	}
	return 1
}

// lookup finds the resources a coordinator made, waiting (until ctx ends) for them to
// exist: a worker may start before its coordinator.
func lookup(ctx context.Context, nc *nats.Conn, onWait func(error)) (*resources, error) {
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, err
	}
	r := &resources{js: js}
	for {
		err = r.find(ctx)
		if err == nil {
			return r, nil
		}
		if onWait != nil {
			onWait(err)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Second):
		}
	}
}

func (r *resources) find(ctx context.Context) error {
	var err error
	if r.stream, err = r.js.Stream(ctx, StreamName); err != nil {
		return fmt.Errorf("stream %s: %w", StreamName, err)
	}
	if r.cons, err = r.stream.Consumer(ctx, ConsumerName); err != nil {
		return fmt.Errorf("consumer %s: %w", ConsumerName, err)
	}
	if r.kv, err = r.js.KeyValue(ctx, BucketName); err != nil {
		return fmt.Errorf("bucket %s: %w", BucketName, err)
	}
	if r.objects, err = r.js.ObjectStore(ctx, ObjectsName); err != nil {
		return fmt.Errorf("object store %s: %w", ObjectsName, err)
	}
	return nil
}

// token makes an id safe as a subject token and a key part: kept when it is letters,
// digits, '-' and '_', hex-encoded (with an "x" prefix) otherwise.
func token(id string) string {
	for _, c := range id {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return fmt.Sprintf("x%x", id)
		}
	}
	return id
}

func jobSubject(task string, index int) string {
	return fmt.Sprintf("%s.%s.%d", subjectBase, token(task), index)
}
func doneKey(task string, index int) string { return fmt.Sprintf("done.%s.%d", token(task), index) }
func failKey(task string, index int) string { return fmt.Sprintf("fail.%s.%d", token(task), index) }
func cancelKey(task string) string          { return "cancel." + token(task) }
