package export

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/cutroom/cutroom/apierr"
	"github.com/cutroom/cutroom/editor"
	"github.com/cutroom/cutroom/model"
	"github.com/cutroom/cutroom/storage"
	"github.com/google/uuid"
)

// Created is the outcome of Create.
type Created struct {
	Result CreateResult
	// New is false when an earlier task with the same clientTaskId was returned.
	New bool
	// Data is Result's JSON (stored as the idempotency record's data when there is one).
	Data []byte
}

// Codes of Create's rules. Render fails a task with ErrFeatureUnsupported, ErrStateEmpty and
// ErrOutputTooLarge too, when a stored task breaks a rule the create checked.
var (
	errRatioMismatch        = apierr.Define(apierr.Unprocessable, "RATIO_MISMATCH")
	ErrFeatureUnsupported   = apierr.Define(apierr.Unprocessable, "EXPORT_FEATURE_UNSUPPORTED")
	ErrStateEmpty           = apierr.Define(apierr.Unprocessable, "EXPORT_STATE_EMPTY")
	ErrOutputTooLarge       = apierr.Define(apierr.Unprocessable, "OUTPUT_SIZE_TOO_LARGE")
	errOutputNotEntitled    = apierr.Define(apierr.Unprocessable, "OUTPUT_SIZE_NOT_ENTITLED")
	err60FPSRequired        = apierr.Define(apierr.Unprocessable, "ENTITLEMENT_60FPS_REQUIRED")
	errInsufficientCredits  = apierr.Define(apierr.Unprocessable, "INSUFFICIENT_CREDITS")
	errWebhookSecretMissing = apierr.Define(apierr.Unprocessable, "WEBHOOK_SECRET_NOT_CONFIGURED")
	// ErrAssetUnresolvable: assets the render needs are neither uploaded nor fetchable
	// under the server's --fetch-remote policy; the details list each (assets.Unresolved).
	ErrAssetUnresolvable = apierr.Define(apierr.Unprocessable, "EXPORT_ASSET_UNRESOLVABLE")
)

// Create validates a create request and stores the new PENDING task, charging its credits.
// projectID is "" for a stateless export. With idem not nil (the request had an
// Idempotency-Key), the result's JSON is stored as idem's data in the same transaction as
// the task (the caller sets idem's other members); without idem, a clientTaskId the
// workspace used before returns that task (New false) instead of a new one.
//
// Its rules are checked in the order of the steps below (a request that breaks several
// learns the first): the request itself, the editor state (valid, then renderable), the
// output (length, size, entitlements), the credits, then the disk and the callback, all
// before anything is charged or stored.
func (s *Service) Create(ctx context.Context, p model.Principal, projectID string, req *Request,
	idem *storage.IdempotencyRecord) (Created, error) {
	if err := req.check(projectID == "", s.cfg.HeaderPrefix); err != nil {
		return Created{}, err
	}
	ws := p.Workspace
	dedupe := idem == nil && req.ClientTaskID != nil
	if dedupe {
		if prior, err := s.store.ExportByClientTaskID(ws.ID, *req.ClientTaskID); err != nil {
			return Created{}, err
		} else if prior != nil {
			return existing(prior)
		}
	}
	src, err := s.stateOf(ws.ID, projectID, req)
	if err != nil {
		return Created{}, err
	}
	parsed, err := s.validState(src.state)
	if err != nil {
		return Created{}, err
	}
	o := output{fps: *req.FPS}
	if o.compW, o.compH, err = composition(req, parsed); err != nil {
		return Created{}, err
	}
	if err := s.checkRenderable(ws.ID, parsed); err != nil {
		return Created{}, err
	}
	warnings, err := s.checkFonts(parsed)
	if err != nil {
		return Created{}, err
	}
	if err := s.sizeOutput(&o, ws, req, parsed); err != nil {
		return Created{}, err
	}
	if err := s.price(&o, ws.ID); err != nil {
		return Created{}, err
	}
	if err := s.admit(ctx, ws, req); err != nil {
		return Created{}, err
	}
	t := s.newTask(p, req, src, o)
	t.Warnings = warnings
	return s.insert(t, src.state, idem, dedupe)
}

func existing(t *model.ExportTask) (Created, error) {
	r := resultOf(t)
	data, err := json.Marshal(r)
	return Created{Result: r, Data: data}, err
}

// exportState is the editor state an export renders, with where it comes from.
type exportState struct {
	state      []byte
	projectRef *string // the project's id, nil for a stateless export
	version    string
}

// stateOf returns the request's state (stateless export) or the project's.
func (s *Service) stateOf(workspaceID, projectID string, req *Request) (exportState, error) {
	if projectID == "" {
		src := exportState{state: []byte(strings.TrimSpace(string(req.EditorState)))}
		if req.StateVersion != nil {
			src.version = *req.StateVersion
		}
		return src, nil
	}
	proj, st, err := s.store.ProjectWithState(workspaceID, projectID)
	if err != nil {
		return exportState{}, storeError(err, projectID)
	}
	id := proj.ID
	return exportState{state: st, projectRef: &id, version: proj.StateVersion}, nil
}

// validState parses the state and refuses it with its first validation issue's code, the
// issue's path under editorState and every issue in the details.
func (s *Service) validState(state []byte) (*editor.State, error) {
	parsed, res := s.validate.Check(state)
	if res.Valid {
		return parsed, nil
	}
	first := res.Errors[0]
	msg := "the editor state is not valid: " + first.Message
	if first.Path != "" {
		msg = "the editor state is not valid at " + first.Path + ": " + first.Message
	}
	if n := len(res.Errors) - 1; n > 0 {
		msg += fmt.Sprintf(" (and %d more; see errors)", n)
	}
	return nil, editor.APICode(first.Code).Field("editorState"+first.Path, "%s", msg).WithDetails(res.Errors)
}

// composition returns the composition size (the request's overrides, else the state's)
// and checks the request's ratio against it.
func composition(req *Request, parsed *editor.State) (w, h int, err error) {
	w, h = parsed.CompositionWidth, parsed.CompositionHeight
	if req.CompositionWidth != nil {
		w = *req.CompositionWidth
	}
	if req.CompositionHeight != nil {
		h = *req.CompositionHeight
	}
	if r := Ratios[*req.Ratio]; r[0] != 0 && !ratioMatches(w, h, r[0], r[1]) {
		return 0, 0, errRatioMismatch.Field("ratio", "ratio %s does not match the composition size %dx%d; send the matching ratio or custom", *req.Ratio, w, h)
	}
	return w, h, nil
}

// checkRenderable refuses a state this server cannot render: names it does not know,
// features the renderer lacks, parts it cannot draw, and assets it cannot read.
func (s *Service) checkRenderable(workspaceID string, parsed *editor.State) error {
	if err := s.checkNames(workspaceID, parsed); err != nil {
		return err
	}
	if fr, ok := s.renderer.(Featured); ok {
		if err := RefuseUnsupported(parsed, fr.Features()); err != nil {
			return err
		}
	}
	if sc, ok := s.renderer.(StateChecker); ok {
		if err := RefuseUndrawable(parsed, sc); err != nil {
			return err
		}
	}
	if s.cfg.Unresolvable != nil {
		if un := s.cfg.Unresolvable(workspaceID, parsed); len(un) > 0 {
			names := make([]string, len(un))
			for i, u := range un {
				names[i] = strconv.Quote(u.AssetID)
			}
			return ErrAssetUnresolvable.Field("editorState",
				"these assets cannot be read for the render: %s (%s); upload them, or the operator allows fetching their remoteUrl (serve --fetch-remote, --fetch-hosts)",
				strings.Join(names, ", "), un[0].Reason).WithDetails(un)
		}
	}
	return nil
}

// output is what Create works out about the video: its composition, length, output size
// and price.
type output struct {
	compW, compH int
	fps          int
	frames       int64
	outW, outH   int
	videoSeconds float64
	billed       int64 // standard seconds (see Billed)
	charge       int64 // credits
	pool         string
}

// sizeOutput works out o's length and output size and checks them against the server's
// limits and the workspace's entitlements.
func (s *Service) sizeOutput(o *output, ws model.Workspace, req *Request, parsed *editor.State) error {
	o.frames = editor.FrameCount(parsed.DurationTicks(), int64(o.fps), parsed.TimebaseTicksPerSecond)
	if o.frames <= 0 {
		return ErrStateEmpty.Field("editorState", "the editor state has no items on its tracks, so there is nothing to render")
	}
	// The video lasts until the end of the last item in a track (trims and playback rates
	// change what an item shows, not how long it lasts): refuse what is too long to render
	// before anything is charged or stored.
	if err := CheckLength(o.frames, o.fps, s.cfg.MaxDuration); err != nil {
		return err
	}
	o.outW, o.outH = evenRound(float64(o.compW)**req.Scale), evenRound(float64(o.compH)**req.Scale)
	if side := max(o.outW, o.outH); side > s.cfg.MaxOutputSide {
		return ErrOutputTooLarge.Field("scale", "the output would be %dx%d; this server renders at most %d pixels on the longest side (lower scale)", o.outW, o.outH, s.cfg.MaxOutputSide)
	}
	if ws.MaxOutputSide > 0 && max(o.outW, o.outH) > ws.MaxOutputSide {
		return errOutputNotEntitled.Field("scale", "the output would be %dx%d; this workspace may export at most %d pixels on the longest side", o.outW, o.outH, ws.MaxOutputSide)
	}
	if o.fps == 60 && ws.Deny60FPS {
		return err60FPSRequired.Field("fps", "this workspace is not entitled to 60 fps exports; use 30")
	}
	o.videoSeconds = float64(o.frames) / float64(o.fps)
	return nil
}

// price works out o's charge and the pool it is debited from, and checks the workspace's
// balance.
func (s *Service) price(o *output, workspaceID string) error {
	o.billed = Billed(o.videoSeconds, o.outW, o.outH, o.fps)
	o.charge = o.billed * CreditsPerSecond
	balance, limited, err := s.store.WorkspaceCredits(workspaceID)
	if err != nil {
		return err
	}
	o.pool = model.PoolUnlimited
	if limited {
		o.pool = model.PoolWorkspace
		if balance < o.charge {
			return errInsufficientCredits.New("this export costs %d credits and the workspace has %d", o.charge, balance)
		}
	}
	return nil
}

// admit checks the disk's floor and the callback: after the state's and the workspace's
// rules (a request that breaks one learns that first) and before anything is charged or
// stored.
func (s *Service) admit(ctx context.Context, ws model.Workspace, req *Request) error {
	if err := s.cfg.Space.Admit(0); err != nil {
		return err
	}
	if req.CallbackURL != nil {
		if ws.WebhookSecret == "" {
			return errWebhookSecretMissing.Field("callbackUrl", "callbackUrl needs a webhook secret on the workspace to sign callbacks; the operator sets it (serve --webhook-secret or `cutroom workspaces update --webhook-secret`)")
		}
		if err := s.cfg.Guard.CheckURL(ctx, *req.CallbackURL); err != nil {
			return err
		}
	}
	return nil
}

// newTask is the new PENDING task of a request that passed every rule.
func (s *Service) newTask(p model.Principal, req *Request, src exportState, o output) model.ExportTask {
	id := uuid.NewString()
	t := model.ExportTask{ID: id, WorkspaceID: p.Workspace.ID, ProjectID: src.projectRef, CreatedByKeyID: p.Key.ID,
		ClientTaskID: req.ClientTaskID, Status: model.StatusPending, Format: *req.Format, FPS: o.fps,
		Ratio: *req.Ratio, Scale: *req.Scale, CompositionWidth: o.compW, CompositionHeight: o.compH,
		OutputWidth: o.outW, OutputHeight: o.outH, Frames: o.frames, VideoSeconds: o.videoSeconds,
		StateVersion: src.version, BilledStandardSeconds: o.billed, ChargedCredits: o.charge, CreditPool: o.pool,
		CallbackURL: req.CallbackURL, CallbackHeaders: req.CallbackHeaders, CreatedAt: s.now().UTC(),
		Filename: id + "." + *req.Format}
	if req.Filename != nil {
		t.Filename = *req.Filename
	}
	return t
}

// insert stores t with its state, debiting its credits, and with idem's data (the create
// result's JSON) in the same transaction; with dedupe, a task of the same clientTaskId
// stored meanwhile is returned instead. A new task is published and wakes the scheduler.
func (s *Service) insert(t model.ExportTask, state []byte, idem *storage.IdempotencyRecord, dedupe bool) (Created, error) {
	result := resultOf(&t)
	data, err := json.Marshal(result)
	if err != nil {
		return Created{}, err
	}
	if idem != nil {
		idem.Data = data
	}
	prior, err := s.store.CreateExport(t, state, idem, storage.ExportLimits{MaxActive: s.cfg.MaxActive, DedupeClientTaskID: dedupe})
	if err == nil && prior == nil {
		s.follow()
	}
	if err != nil {
		return Created{}, storeError(err, t.ID)
	}
	if prior != nil {
		return existing(prior)
	}
	s.cfg.Metrics.ExportCreated()
	s.log.Info("export created", "task", t.ID, "workspace", t.WorkspaceID, "frames", t.Frames, "format", t.Format)
	logWarnings(s.log, &t)
	s.Wake()
	return Created{Result: result, New: true, Data: data}, nil
}
