package export

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cutroom/cutroom/apierr"
	"github.com/cutroom/cutroom/assets"
	"github.com/cutroom/cutroom/blob"
	"github.com/cutroom/cutroom/diskspace"
	"github.com/cutroom/cutroom/editor"
	"github.com/cutroom/cutroom/model"
	"github.com/cutroom/cutroom/signedlink"
	"github.com/cutroom/cutroom/storage"
	"github.com/cutroom/cutroom/webhook"
	"github.com/google/uuid"
)

// Store is the storage the Service needs; *storage.DB implements it.
type Store interface {
	CreateExport(t model.ExportTask, state []byte, idem *storage.IdempotencyRecord, limits storage.ExportLimits) (*model.ExportTask, error)
	ExportTask(workspaceID, id string) (model.ExportTask, error)
	ExportTaskByID(id string) (model.ExportTask, error)
	ExportTasksByID(ids []string) (map[string]model.ExportTask, error)
	ExportState(id string) ([]byte, error)
	ExportByClientTaskID(workspaceID, clientTaskID string) (*model.ExportTask, error)
	ListExports(workspaceID string, pageSize int, cursor, createdByKeyID string) ([]model.ExportTask, string, error)
	UpdateExport(id string, change func(t *model.ExportTask) ([]model.WebhookDelivery, error)) (model.ExportTask, error)
	PendingExports(n int) ([]string, error)
	ActiveExportTasks() ([]model.ExportTask, error)
	RenewLeases(node string, ids []string, until time.Time) ([]storage.LostLease, error)
	WorkspaceActiveExports(workspaceID string) ([]string, error)
	ExpiredOutputs(now time.Time) ([]string, error)
	WorkspaceCredits(workspaceID string) (balance int64, limited bool, err error)
	ProjectWithState(workspaceID, id string) (model.Project, []byte, error)
	// The task change log that the event log follows (tail.go), and the signal of commits.
	SequenceTaskChanges() (int, error)
	TaskChanges(after uint64, max int) (storage.TaskChangeLog, error)
	TrimTaskChanges(upto uint64) (int, error)
	TaskChangesEpoch() (string, error)
	Subscribe(ctx context.Context) <-chan struct{}
	Shared() bool
}

// DefaultOutputTTL is how long an output link works by default (Config.OutputTTL).
const DefaultOutputTTL = 72 * time.Hour

// Config configures a Service. Zero values take the documented defaults.
type Config struct {
	// Workers is how many tasks render at once (default max(1, NumCPU/2)).
	Workers int
	// OutputDir holds the finished files, one directory per task (required).
	OutputDir string
	// OutputTTL is how long an output link works; the file is deleted after it (default 72 h).
	OutputTTL time.Duration
	// MaxActive is the most active tasks per workspace (default 2).
	MaxActive int
	// MaxOutputSide caps the longest side of an output in pixels (default
	// DefaultMaxOutputSide).
	MaxOutputSide int
	// MaxDuration is the longest video an export may produce (default DefaultMaxDuration,
	// 4 h); a longer one is refused at create with EXPORT_TOO_LONG, before anything is
	// charged or stored. The frame count is also capped at MaxFrames.
	MaxDuration time.Duration
	// ProgressInterval is the least time between progress writes of a task (default 500 ms).
	ProgressInterval time.Duration
	// PollInterval is how often the scheduler looks for pending tasks without being woken
	// (default 2 s); JanitorInterval how often it deletes expired outputs (default 1 min).
	PollInterval    time.Duration
	JanitorInterval time.Duration
	// Links signs output links (required).
	Links *Links
	// Guard checks callback URLs at create time; nil allows only public addresses.
	Guard *webhook.Guard
	// HeaderPrefix is the webhook header prefix callers may not override (default X-Service).
	HeaderPrefix string
	// Notify is called after webhook events were added to the outbox (the deliverer's Notify).
	Notify func()
	// Now returns the current time; time.Now when nil.
	Now func() time.Time
	// Logger receives task logs; slog.Default() when nil.
	Logger *slog.Logger
	// Space refuses new tasks (STORAGE_FULL) while the output directory's filesystem is
	// below its free-space floor; nil refuses none. A task commit that fails for lack of
	// space is STORAGE_FULL either way.
	Space *diskspace.Guard
	// Metrics counts tasks created and finished and observes renders; nil counts nothing.
	Metrics Metrics
	// Unresolvable, when set, lists the assets of a workspace's state that a render could
	// not read (not uploaded, fetching off or the host not allowed); Create refuses such a
	// state with EXPORT_ASSET_UNRESOLVABLE before anything is charged or stored. nil
	// checks nothing (the render reports what it cannot read).
	Unresolvable func(workspaceID string, st *editor.State) []assets.Unresolved
	// EventBuffer is how many task changes the event log (Events) keeps for streams to
	// replay (default DefaultEventBuffer), and how many the database's task change log keeps
	// (the smallest of the nodes' over one database wins).
	EventBuffer int
	// EventPoll is the longest time between two reads of the database's task change log
	// (default DefaultEventPoll); a commit of any node over the database wakes the reader
	// sooner.
	EventPoll time.Duration
	// Names, when set, gives what a workspace's state may name beyond the built-in
	// sets: its own illustrations and the remote background images the server fetches.
	// Create refuses a state with a name that resolves to nothing (editor.ReferenceIssues:
	// EDITOR_ILLUSTRATION_UNKNOWN, EDITOR_BACKGROUND_PRESET_UNKNOWN) before anything is
	// charged or stored. nil resolves against the built-in sets only.
	Names func(workspaceID string) (editor.References, error)
	// Fonts, when set, reports whether the renders have a font of a family (one name of a
	// CSS font-family list, compared without case; generic families never reach it).
	// Create checks every fontFamily a state's text names (editor.FontIssues): one that no
	// font provides is refused with EXPORT_FONT_MISSING when MissingFonts is
	// MissingFontsRefuse, else recorded as the task's warnings (returned with the task)
	// and logged at create and render start. nil checks nothing.
	Fonts func(family string) bool
	// MissingFonts is MissingFontsWarn (default, "") or MissingFontsRefuse.
	MissingFonts string
	// Blobs, when set, keeps outputs in an object store every node reads (--blob-store
	// nats): an output is put there before its task is COMPLETED, downloads fetch a missing
	// one into OutputDir, expiry deletes the object. nil: OutputDir holds the only copy.
	Blobs *blob.Store
	// SharedOutputs says OutputDir is shared by several nodes (--blob-store DIR): a node
	// that lost a task's lease then leaves the task's directory to the node rendering it.
	SharedOutputs bool
	// NodeID names this node in the leases of the tasks it renders (default
	// model.NewNodeID(): the host name and 6 random hex digits, new at each start). Nodes
	// sharing a database must have different ids.
	NodeID string
	// LeaseTTL is how long a task's lease lasts without a renewal (default DefaultLeaseTTL,
	// 30 s); the node renews its leases every LeaseTTL/3. When a node stops renewing (it
	// died), another takes its tasks after LeaseTTL (leases.go).
	LeaseTTL time.Duration
}

// Service manages export tasks: create, read, list and cancel for the API, and the
// scheduler (Run) that renders pending tasks with the Renderer. It is safe for
// concurrent use.
type Service struct {
	cfg      Config
	store    Store
	renderer Renderer
	links    *Links
	log      *slog.Logger
	now      func() time.Time
	validate *editor.Validator
	wake     chan struct{}
	events   *EventLog

	followMu           sync.Mutex // one follow at a time (tail.go); guards what it read
	logOldest, logLast uint64

	mu      sync.Mutex
	running map[string]context.CancelCauseFunc
	leases  map[string]struct{}  // tasks whose lease this node holds (claimed, render running)
	lostAt  map[string]time.Time // tasks whose lease this node lost, when (not claimed again for a LeaseTTL)
	// crashOnStop makes Run's end stop renders as a crash would: nothing recorded (tests)
	crashOnStop atomic.Bool
}

// New returns a Service. Call Run to render tasks.
func New(cfg Config, store Store, r Renderer) (*Service, error) {
	if cfg.OutputDir == "" || cfg.Links == nil || r == nil {
		return nil, errors.New("export: OutputDir, Links and a Renderer are required")
	}
	if err := CheckMissingFonts(cfg.MissingFonts); err != nil {
		return nil, fmt.Errorf("export: MissingFonts: %w", err)
	}
	if cfg.Workers <= 0 {
		cfg.Workers = max(1, runtime.NumCPU()/2)
	}
	if cfg.OutputTTL <= 0 {
		cfg.OutputTTL = DefaultOutputTTL
	}
	if cfg.MaxActive <= 0 {
		cfg.MaxActive = 2
	}
	if cfg.MaxOutputSide <= 0 {
		cfg.MaxOutputSide = DefaultMaxOutputSide
	}
	if cfg.MaxDuration <= 0 {
		cfg.MaxDuration = DefaultMaxDuration
	}
	if cfg.ProgressInterval <= 0 {
		cfg.ProgressInterval = 500 * time.Millisecond
	}
	if cfg.PollInterval <= 0 {
		cfg.PollInterval = 2 * time.Second
	}
	if cfg.JanitorInterval <= 0 {
		cfg.JanitorInterval = time.Minute
	}
	if cfg.Guard == nil {
		cfg.Guard, _ = webhook.NewGuard(nil)
	}
	if cfg.HeaderPrefix == "" {
		cfg.HeaderPrefix = webhook.DefaultHeaderPrefix
	}
	if cfg.Notify == nil {
		cfg.Notify = func() {}
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Metrics == nil {
		cfg.Metrics = noMetrics{}
	}
	if cfg.EventBuffer <= 0 {
		cfg.EventBuffer = DefaultEventBuffer
	}
	if cfg.NodeID == "" {
		cfg.NodeID = model.NewNodeID()
	}
	if cfg.LeaseTTL <= 0 {
		cfg.LeaseTTL = DefaultLeaseTTL
	}
	if cfg.EventPoll <= 0 {
		cfg.EventPoll = DefaultEventPoll
	}
	if err := os.MkdirAll(cfg.OutputDir, 0o750); err != nil {
		return nil, fmt.Errorf("export: output dir: %w", err)
	}
	v, err := editor.NewValidator()
	if err != nil {
		return nil, err
	}
	epoch, err := store.TaskChangesEpoch()
	if err != nil {
		return nil, fmt.Errorf("export: task change log: %w", err)
	}
	s := &Service{cfg: cfg, store: store, renderer: r, links: cfg.Links, log: cfg.Logger, now: cfg.Now,
		validate: v, wake: make(chan struct{}, 1), events: newEventLog(epoch, cfg.EventBuffer), running: map[string]context.CancelCauseFunc{},
		leases: map[string]struct{}{}, lostAt: map[string]time.Time{}}
	// The event log starts with the newest changes it holds, so an id given before this
	// start, or by another node, resumes here.
	l, err := store.TaskChanges(0, 0)
	if err != nil {
		return nil, fmt.Errorf("export: task change log: %w", err)
	}
	if n := uint64(cfg.EventBuffer); l.Last > n {
		s.events.skip(l.Last - n)
	}
	s.follow()
	return s, nil
}

// Task returns a task of a workspace as the API shows it.
func (s *Service) Task(workspaceID, id string) (TaskView, error) {
	t, err := s.store.ExportTask(workspaceID, id)
	if err != nil {
		return TaskView{}, storeError(err, id)
	}
	return s.View(&t), nil
}

// List returns a page of a workspace's tasks, newest first.
func (s *Service) List(workspaceID string, pageSize int, cursor, createdByKeyID string) ([]TaskView, string, error) {
	ts, next, err := s.store.ListExports(workspaceID, pageSize, cursor, createdByKeyID)
	if err != nil {
		return nil, "", storeError(err, "")
	}
	out := make([]TaskView, 0, len(ts))
	for i := range ts {
		out = append(out, s.View(&ts[i]))
	}
	return out, next, nil
}

// errCanceled and errPaused are the causes a running render is stopped with.
var (
	errCanceled = errors.New("export canceled")
	errPaused   = errors.New("server shutting down: export paused")
)

// Paused reports whether a render's ctx was stopped because the server shuts down (the task
// is recorded PAUSED and rendered again at the next start, or by another node) or because
// another node took the task (its lease expired), not canceled or failed. A renderer that
// keeps work outside the process (package cluster) keeps it for the resumed render.
func Paused(ctx context.Context) bool { return errors.Is(context.Cause(ctx), errPaused) }

var errTaskNotCancelable = apierr.Define(apierr.Conflict, "TASK_NOT_CANCELABLE")

// Cancel cancels an active task of a workspace and stops its render: the task becomes
// CANCELED with its credits refunded, and no webhook is sent. Canceling a CANCELED task
// returns it unchanged; a COMPLETED or FAILED task gives TASK_NOT_CANCELABLE.
func (s *Service) Cancel(workspaceID, id string) (TaskView, error) {
	if _, err := s.store.ExportTask(workspaceID, id); err != nil {
		return TaskView{}, storeError(err, id)
	}
	now := s.now().UTC()
	t, canceled, err := s.update(id, func(t *model.ExportTask) ([]model.WebhookDelivery, error) {
		switch {
		case t.Status == model.StatusCanceled:
			return nil, storage.ErrNoChange
		case !t.Active():
			return nil, errTaskNotCancelable.New("export task %s is %s and cannot be canceled", t.ID, t.Status)
		}
		msg := "canceled by request"
		t.Status, t.Phase, t.Error, t.CompletedAt = model.StatusCanceled, "", &msg, &now
		if t.StartedAt != nil {
			t.RenderSeconds = now.Sub(*t.StartedAt).Seconds()
		}
		refund(t)
		return nil, nil
	})
	if err != nil {
		return TaskView{}, storeError(err, id)
	}
	if canceled {
		s.cfg.Metrics.ExportFinished(model.StatusCanceled)
		s.log.Info("export canceled by request", "task", id)
	}
	s.abort(id, errCanceled)
	return s.View(&t), nil
}

// refund returns a task's charge to its workspace (storage credits the difference).
func refund(t *model.ExportTask) {
	if !t.Refunded {
		t.Refunded = true
		t.ChargedCredits = 0
	}
}

func (s *Service) abort(id string, cause error) {
	s.mu.Lock()
	cancel := s.running[id]
	s.mu.Unlock()
	if cancel != nil {
		cancel(cause)
	}
}

// Output is an opened output file, for serving a signed link.
type Output struct {
	io.ReadSeekCloser
	Name        string
	ContentType string
	ModTime     time.Time
	Size        int64
}

// errOutputExpired: a valid output link whose expiry has passed (the output is deleted then).
var errOutputExpired = apierr.Define(apierr.Gone, "OUTPUT_EXPIRED")

// OpenOutput checks a signed output link and opens the file (fetched from the object store
// when this node has no copy). A bad signature gives LINK_INVALID; an expired link or a
// deleted output OUTPUT_EXPIRED.
func (s *Service) OpenOutput(taskID, filename, exp, sig string) (*Output, error) {
	e, err := strconv.ParseInt(exp, 10, 64)
	if err != nil || !s.links.Verify(taskID, filename, e, sig) {
		return nil, signedlink.CodeInvalid.New("this download link is not valid; fetch the task again for a fresh outputUrl")
	}
	if !s.now().Before(time.Unix(e, 0)) {
		return nil, errOutputExpired.New("this download link has expired and the output was deleted; export again")
	}
	t, err := s.store.ExportTaskByID(taskID)
	if err != nil {
		return nil, storeError(err, taskID)
	}
	if t.Status != model.StatusCompleted || t.OutputPurged || t.Filename != filename {
		return nil, errOutputExpired.New("this output is no longer available")
	}
	f, err := s.openOutput(s.outputPath(&t))
	if errors.Is(err, os.ErrNotExist) {
		return nil, errOutputExpired.New("this output is no longer available")
	}
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	ct := "video/mp4"
	if t.Format == "webm" {
		ct = "video/webm"
	}
	return &Output{ReadSeekCloser: f, Name: t.Filename, ContentType: ct, ModTime: st.ModTime(), Size: st.Size()}, nil
}

// openOutput opens an output file, fetched first when this node has no copy.
func (s *Service) openOutput(path string) (*os.File, error) {
	ctx, cancel := context.WithTimeout(context.Background(), outputFetchTimeout)
	defer cancel()
	return s.cfg.Blobs.Open(ctx, path)
}

// outputFetchTimeout bounds fetching an output from the object store for a download.
const outputFetchTimeout = 5 * time.Minute

// dropOutput removes a task's output directory and, when it was put (renderFile
// returned nil: a cancel, pause or the task's change came after), its object.
func (s *Service) dropOutput(t *model.ExportTask, put bool) {
	_ = os.RemoveAll(s.taskDir(t.ID))
	if put {
		s.cfg.Blobs.Drop(s.outputPath(t))
	}
}

func (s *Service) taskDir(id string) string { return filepath.Join(s.cfg.OutputDir, id) }

func (s *Service) outputPath(t *model.ExportTask) string {
	return filepath.Join(s.taskDir(t.ID), t.ID+"."+t.Format)
}

// event builds the outbox entry of a webhook event showing t as it is after the change.
func (s *Service) event(t *model.ExportTask, eventType string, at time.Time) ([]model.WebhookDelivery, error) {
	if t.CallbackURL == nil {
		return nil, nil
	}
	body, err := json.Marshal(struct {
		EventType  string   `json:"eventType"`
		OccurredAt string   `json:"occurredAt"`
		Task       TaskView `json:"task"`
	}{eventType, model.Timestamp(at), s.View(t)})
	if err != nil {
		return nil, err
	}
	return []model.WebhookDelivery{{EventID: "evt_" + uuid.NewString(), EventType: eventType, TaskID: t.ID,
		WorkspaceID: t.WorkspaceID, URL: *t.CallbackURL, Headers: t.CallbackHeaders, Body: body,
		NextAttemptAt: at, CreatedAt: at}}, nil
}
