package storage

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Bucket names. Every record is JSON, encoded before and decoded after its transaction.
var (
	bucketMeta          = []byte("meta")
	bucketWorkspaces    = []byte("workspaces")     // workspace id -> Workspace
	bucketWorkspaceName = []byte("workspace_name") // lower-case name -> workspace id
	bucketKeys          = []byte("api_keys")       // key id -> APIKey
	bucketKeyHash       = []byte("api_key_hash")   // sha-256 hex of the secret -> key id
	bucketProjects      = []byte("projects")       // project id -> Project (no state)
	bucketProjectState  = []byte("project_state")  // project id -> raw editor state bytes
	bucketProjectIndex  = []byte("project_index")  // workspace id -> nested bucket: order key -> project id
	bucketIdempotency   = []byte("idempotency")    // scope hash -> IdempotencyRecord

	bucketExports      = []byte("exports")        // task id -> ExportTask (no state)
	bucketExportState  = []byte("export_state")   // task id -> raw editor state snapshot
	bucketExportIndex  = []byte("export_index")   // workspace id -> nested: order key -> task id
	bucketExportActive = []byte("export_active")  // workspace id -> nested: task id -> ""
	bucketExportClient = []byte("export_client")  // workspace id NUL clientTaskId -> task id
	bucketExportQueue  = []byte("export_queue")   // order key -> task id of PENDING tasks
	bucketExportExpiry = []byte("export_expiry")  // expiry (8 bytes) + task id -> task id
	bucketCredits      = []byte("credits")        // workspace id -> int64 balance (absent: unlimited)
	bucketOutbox       = []byte("webhook_outbox") // sequence (8 bytes) -> WebhookDelivery
	bucketOutboxDead   = []byte("webhook_dead")   // sequence (8 bytes) -> WebhookDelivery given up
	// task id + sequence (8 bytes) -> WebhookDelivery delivered; made by the first delivery
	bucketOutboxDone = []byte("webhook_delivered")

	keySchemaVersion = []byte("schema_version")
)

// migrations run in order; the schema version stored in the meta bucket is the number of
// migrations applied. Append new ones; never reorder or edit an applied one. A new bucket
// or record needs its rule in bucketRules (records.go), which a restore checks every
// record against: a backup holding a bucket without one is refused as not cutroom's.
var migrations = []func(tx Tx) error{
	func(tx Tx) error { // 1: the foundation's buckets
		for _, b := range [][]byte{bucketWorkspaces, bucketWorkspaceName, bucketKeys, bucketKeyHash,
			bucketProjects, bucketProjectState, bucketProjectIndex, bucketIdempotency} {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		return nil
	},
	func(tx Tx) error { // 2: export tasks, credits, webhook outbox
		for _, b := range [][]byte{bucketExports, bucketExportState, bucketExportIndex, bucketExportActive,
			bucketExportClient, bucketExportQueue, bucketExportExpiry, bucketCredits, bucketOutbox, bucketOutboxDead} {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		return nil
	},
	migrateAssets, // 3: assets and project bindings (assets.go)
	func(tx Tx) error { // 4: per-workspace reference versions (assets.go)
		_, err := tx.CreateBucketIfNotExists(bucketReferences)
		return err
	},
	migrateIdempotencyData, // 5: idempotency records keep the resource, not the HTTP body (idempotency.go)
	migrateIllustrations,   // 6: the workspaces' own illustrations (illustrations.go)
	migrateAssetIndex,      // 7: each workspace's assets in upload order (assets.go)
}

// Options configure Open.
type Options struct {
	// LockTimeout is how long Open waits for another process to release the database
	// file. A second server on the same data directory fails after it with ErrLocked.
	LockTimeout time.Duration
	// Now returns the current time; time.Now when nil.
	Now func() time.Time
}

// DB is cutroom's database. It is safe for concurrent use.
type DB struct {
	kv   engine   // every record's transactions
	hub  *hub     // Subscribe's channels
	bolt *bolt.DB // the bbolt file, for what only bbolt has (backups); nil on another engine
	now  func() time.Time
	path string
}

// ErrLocked is returned by Open when another process holds the database file.
var ErrLocked = errors.New("the database is locked by another cutroom process")

// FileName is the database file's name inside the data directory.
const FileName = "cutroom.db"

// Open opens (creating if needed) the database in dataDir and applies pending migrations.
func Open(dataDir string, opts Options) (*DB, error) {
	if opts.LockTimeout <= 0 {
		opts.LockTimeout = 2 * time.Second
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if err := os.MkdirAll(dataDir, 0o750); err != nil {
		return nil, fmt.Errorf("create data dir: %w", err)
	}
	path := filepath.Join(dataDir, FileName)
	b, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: opts.LockTimeout, FreelistType: bolt.FreelistMapType,
		InitialMmapSize: initialMmapSize})
	if err != nil {
		if errors.Is(err, bolt.ErrTimeout) {
			return nil, fmt.Errorf("%w: %s is in use (is `cutroom serve` running on this data dir?)", ErrLocked, path)
		}
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	db := &DB{kv: boltEngine{b}, hub: newHub(), bolt: b, now: opts.Now, path: path}
	if err := db.migrate(context.Background()); err != nil {
		_ = b.Close()
		return nil, err
	}
	return db, nil
}

// Path returns the database file's path; ErrNotBBolt on PostgreSQL.
func (db *DB) Path() (string, error) {
	if db.bolt == nil {
		return "", errPostgresBackup
	}
	return db.path, nil
}

// Close closes the database file.
func (db *DB) Close() error {
	db.hub.close()
	return db.kv.close()
}

// migrate applies the pending record migrations in one transaction, bounded by ctx rather
// than the engine's transaction timeout (a migration may rewrite every record).
func (db *DB) migrate(ctx context.Context) error {
	return runLong(ctx, db, true, func(tx Tx) error {
		meta, err := tx.CreateBucketIfNotExists(bucketMeta)
		if err != nil {
			return err
		}
		var applied uint64
		if v := meta.Get(keySchemaVersion); len(v) == 8 {
			applied = binary.BigEndian.Uint64(v)
		}
		if applied > uint64(len(migrations)) {
			return fmt.Errorf("database schema version %d is newer than this cutroom (%d): upgrade cutroom", applied, len(migrations))
		}
		for i := applied; i < uint64(len(migrations)); i++ {
			if err := migrations[i](tx); err != nil {
				return fmt.Errorf("migration %d: %w", i+1, err)
			}
		}
		return meta.Put(keySchemaVersion, binary.BigEndian.AppendUint64(nil, uint64(len(migrations))))
	})
}

// copyBytes returns a copy of b that outlives the transaction it came from.
// read returns a copy of the value of key in bucket (nil when absent), in a read
// transaction of its own.
func (db *DB) read(bucket, key []byte) ([]byte, error) {
	var v []byte
	err := db.view(func(tx Tx) error {
		v = copyBytes(tx.Bucket(bucket).Get(key))
		return nil
	})
	return v, err
}

// readMany returns copies of the values of ids in bucket (nil for those absent), read in
// one transaction and one query (getMany); none without ids.
func (db *DB) readMany(bucket []byte, ids []string) ([][]byte, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	keys := stringKeys(ids)
	var vs [][]byte
	err := db.view(func(tx Tx) error {
		vs = getMany(tx.Bucket(bucket), keys)
		return nil
	})
	return vs, err
}

// readRecords decodes the records of ids in bucket that exist (readMany), by id.
func readRecords[T any](db *DB, bucket []byte, ids []string, decode func(raw []byte, id string) (T, error)) (map[string]T, error) {
	raws, err := db.readMany(bucket, ids)
	if err != nil {
		return nil, err
	}
	out := make(map[string]T, len(raws))
	for i, raw := range raws {
		if raw == nil {
			continue
		}
		v, err := decode(raw, ids[i])
		if err != nil {
			return nil, err
		}
		out[ids[i]] = v
	}
	return out, nil
}

func copyBytes(b []byte) []byte {
	if b == nil {
		return nil
	}
	return append([]byte(nil), b...)
}
