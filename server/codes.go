package server

import "github.com/cutroom/cutroom/apierr"

// The server's own error codes, one table: each is an apierr code with its kind (its HTTP
// status), grouped by the rule or route that raises it. Codes of the packages it calls
// (export, assets, editor, storage) are defined there and pass through.
var (
	// errAdminTokenInvalid is the one answer to a missing or wrong admin token (an API key
	// included), so the response never tells which it was.
	errAdminTokenInvalid = apierr.Define(apierr.Unauthenticated, "ADMIN_TOKEN_INVALID")
	// errBackupNotSupported: GET /admin/backup on a database that is not a bbolt file
	// (PostgreSQL: its backups are pg_dump's).
	errBackupNotSupported = apierr.Define(apierr.Conflict, "BACKUP_NOT_SUPPORTED")

	// Refusals of the upload headers and the bind request (upload, bindAsset).
	errInvalidHeader = apierr.Define(apierr.Invalid, "INVALID_HEADER")
	errInvalidField  = apierr.Define(apierr.Invalid, "INVALID_FIELD")

	// errKeyInvalid is the one answer to a missing, malformed, unknown or revoked key, so the
	// response never tells which of those it was (keyInvalid).
	errKeyInvalid = apierr.Define(apierr.Unauthenticated, "OPEN_API_KEY_INVALID")

	// errRuntimeForbidden refuses the runtime routes to a workspace whose runtime access is off.
	errRuntimeForbidden = apierr.Define(apierr.Forbidden, "OPEN_API_RUNTIME_ACCESS_FORBIDDEN")

	// errServerBusy: the server-wide budget of JSON body bytes is in use (limitBody).
	errServerBusy = apierr.Define(apierr.Unavailable, "SERVER_BUSY")

	// errTooManyStreams refuses an event stream beyond Config.MaxEventStreams open for one key.
	errTooManyStreams = apierr.Define(apierr.RateLimited, "EVENT_STREAMS_LIMIT")

	// errTaskNotFound: a taskId this server never handed out is simply not found.
	errTaskNotFound = apierr.Define(apierr.NotFound, "TASK_NOT_FOUND")

	// Refusals of the Idempotency-Key rules (idempotent).
	errInvalidIdempotencyKey = apierr.Define(apierr.Invalid, "INVALID_IDEMPOTENCY_KEY")
	errIdempotencyInFlight   = apierr.Define(apierr.Conflict, "IDEMPOTENCY_KEY_IN_FLIGHT")
	errIdempotencyReused     = apierr.Define(apierr.Unprocessable, "IDEMPOTENCY_KEY_REUSED")
	// errIdempotencyExists: the record appeared between the check and the create's
	// transaction and cannot be replayed.
	errIdempotencyExists = apierr.Define(apierr.Conflict, "IDEMPOTENCY_KEY_EXISTS")

	// Refusals of an upload with the x-illustration-name header. errIllustrationName: the name breaks illustrations.ValidName's rules.
	errIllustrationName = apierr.Define(apierr.Invalid, "ILLUSTRATION_NAME_INVALID")
	// errIllustrationBuiltin: the name is a built-in illustration's.
	errIllustrationBuiltin = apierr.Define(apierr.Conflict, "ILLUSTRATION_NAME_BUILTIN")
	// errIllustrationNotSVG: the body is not an SVG document (known from its first bytes).
	errIllustrationNotSVG = apierr.Define(apierr.Unprocessable, "ILLUSTRATION_NOT_SVG")

	// errMetricsToken refuses GET /metrics without the bearer token of Config.MetricsToken.
	errMetricsToken = apierr.Define(apierr.Unauthenticated, "METRICS_TOKEN_INVALID")

	// Refusals of the frame preview routes.
	errFrameTime   = apierr.Define(apierr.Unprocessable, "FRAME_TIME_OUT_OF_RANGE")
	errFrameWidth  = apierr.Define(apierr.Unprocessable, "FRAME_WIDTH_OUT_OF_RANGE")
	errFrameFormat = apierr.Define(apierr.Invalid, "FRAME_FORMAT_UNSUPPORTED")
	errFrameBusy   = apierr.Define(apierr.RateLimited, "FRAME_PREVIEWS_BUSY")
	errFrameAssets = apierr.Define(apierr.Unprocessable, "FRAME_ASSET_UNRESOLVABLE")
	errFrameRender = apierr.Define(apierr.Unprocessable, "FRAME_RENDER_FAILED")
	// errFrameTimeout: the frame took longer than the renderer's preview limit to draw
	// (render.PipelineConfig.MaxPreviewSeconds, --max-preview-seconds).
	errFrameTimeout = apierr.Define(apierr.Unprocessable, "FRAME_RENDER_TIMEOUT")

	// errInternal is the answer to any error that carries no kind: the client learns nothing of
	// it, the log gets all of it.
	errInternal = apierr.Define(apierr.Internal, "INTERNAL_ERROR")

	// errPayloadTooLarge is a body over its route's cap (http.MaxBytesReader's error).
	errPayloadTooLarge = apierr.Define(apierr.TooLarge, "PAYLOAD_TOO_LARGE")

	// Refusals of the project rules.
	errProjectNotFound   = apierr.Define(apierr.NotFound, "PROJECT_NOT_FOUND")
	errFieldNotPatchable = apierr.Define(apierr.Unprocessable, "FIELD_NOT_PATCHABLE")

	// The refusals of a Range header (416), and of a conditional request (412).
	codeRangeInvalid        = apierr.Define(apierr.RangeNotSatisfiable, "RANGE_INVALID")
	codeRangeNotSatisfiable = apierr.Define(apierr.RangeNotSatisfiable, "RANGE_NOT_SATISFIABLE")
	codeRangeTooMany        = apierr.Define(apierr.RangeNotSatisfiable, "RANGE_TOO_MANY")
	errPreconditionFailed   = apierr.Define(apierr.PreconditionFailed, "PRECONDITION_FAILED")

	// errSyncRateLimited is the 429 of the sync route.
	errSyncRateLimited = apierr.Define(apierr.RateLimited, "OPEN_API_PROJECT_SYNC_RATE_LIMITED")

	// Refusals of request decoding and of the parameter rules.
	errBodyTooSlow          = apierr.Define(apierr.Timeout, "BODY_TIMEOUT")
	errBodyUnreadable       = apierr.Define(apierr.Invalid, "BODY_UNREADABLE")
	errBodyRequired         = apierr.Define(apierr.Invalid, "BODY_REQUIRED")
	errInvalidJSON          = apierr.Define(apierr.Invalid, "INVALID_JSON")
	errInvalidFieldType     = apierr.Define(apierr.Invalid, "INVALID_FIELD_TYPE")
	errFieldRequired        = apierr.Define(apierr.Invalid, "FIELD_REQUIRED")
	errFieldTooLong         = apierr.Define(apierr.Unprocessable, "FIELD_TOO_LONG")
	errInvalidPathParameter = apierr.Define(apierr.Invalid, "INVALID_PATH_PARAMETER")
	errInvalidQuery         = apierr.Define(apierr.Invalid, "INVALID_QUERY_PARAMETER")
	errInvalidPageCursor    = apierr.Define(apierr.Invalid, "INVALID_PAGE_CURSOR")

	// Refusals of the routing and host rules (New, checkHost).
	errRouteNotFound    = apierr.Define(apierr.NotFound, "ROUTE_NOT_FOUND")
	errMethodNotAllowed = apierr.Define(apierr.MethodNotAllowed, "METHOD_NOT_ALLOWED")
	errHostNotAllowed   = apierr.Define(apierr.Forbidden, "HOST_NOT_ALLOWED")

	// errCORSOrigin refuses a preflight (for a route and method the API has) from an origin
	// that Config.CORSOrigins does not list (cors).
	errCORSOrigin = apierr.Define(apierr.Forbidden, "CORS_ORIGIN_NOT_ALLOWED")
)
