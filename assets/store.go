package assets

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/cutroom/cutroom/blob"
	"github.com/cutroom/cutroom/diskspace"
	"github.com/cutroom/cutroom/editor"
	"github.com/cutroom/cutroom/lottiebudget"
	"github.com/cutroom/cutroom/model"
	"github.com/cutroom/cutroom/signedlink"
	"github.com/cutroom/cutroom/storage"
	"github.com/cutroom/cutroom/svgbudget"
	"github.com/google/uuid"
)

// Limits are the per-kind upload size caps (bytes) and the image decoding limits.
type Limits struct {
	Image   int64 // png, jpeg, webp, gif, svg
	Video   int64 // mp4, mov, webm, mkv
	Audio   int64 // mp3, aac, wav, m4a, ogg, flac
	Font    int64 // ttf, otf, ttc, woff, woff2
	Lottie  int64 // Lottie JSON
	Caption int64 // caption JSON, SubRip, WebVTT
	// MaxImagePixels and MaxImageSide bound raster image dimensions, read with
	// image.DecodeConfig before anything decodes pixels.
	MaxImagePixels int64
	MaxImageSide   int
	// SVG bounds an SVG document's structure (elements after <use> expansion, nesting,
	// path points, filter work); zero fields take svgbudget's defaults. The compositor
	// applies the same budget before it parses an SVG.
	SVG svgbudget.Limits
	// MaxGIFFrames bounds an animated GIF's frames (DefaultMaxGIFFrames); all its frames
	// together are bounded by MaxImagePixels too (frames x width x height), as rendering
	// decodes every frame.
	MaxGIFFrames int
	// Lottie budgets: layers after precomp expansion (a precomp layer counts its
	// composition's layers each time it is used), precomp nesting, keyframes and the
	// frame count (op - ip). Zero fields take the Default... constants. Images embedded
	// in a Lottie document meet MaxImagePixels, MaxImageSide and Image too.
	MaxLottieLayers    int64
	MaxLottieDepth     int
	MaxLottieKeyframes int64
	MaxLottieFrames    int64
}

// Default structure budgets of GIF and Lottie uploads (see Limits).
const (
	DefaultMaxGIFFrames       = 5000
	DefaultMaxLottieLayers    = 10_000
	DefaultMaxLottieDepth     = 32
	DefaultMaxLottieKeyframes = 500_000
	DefaultMaxLottieFrames    = 216_000 // one hour at 60 fps
)

// DefaultLimits returns the documented defaults: video 800 MiB, audio 25 MiB, image
// 50 MiB, font 20 MiB, lottie 20 MiB, caption 10 MiB; images at most 100 megapixels and
// 16384 pixels on a side; the SVG, GIF and Lottie structure budgets.
func DefaultLimits() Limits {
	return Limits{Image: lottiebudget.DefaultMaxImageBytes, Video: 800 << 20, Audio: 25 << 20, Font: 20 << 20, Lottie: 20 << 20, Caption: 10 << 20,
		MaxImagePixels: lottiebudget.DefaultMaxImagePixels, MaxImageSide: lottiebudget.DefaultMaxImageSide, SVG: svgbudget.Limits{}.WithDefaults(),
		MaxGIFFrames: DefaultMaxGIFFrames, MaxLottieLayers: DefaultMaxLottieLayers, MaxLottieDepth: DefaultMaxLottieDepth,
		MaxLottieKeyframes: DefaultMaxLottieKeyframes, MaxLottieFrames: DefaultMaxLottieFrames}
}

func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	for _, p := range []struct{ v, def *int64 }{{&l.Image, &d.Image}, {&l.Video, &d.Video}, {&l.Audio, &d.Audio},
		{&l.Font, &d.Font}, {&l.Lottie, &d.Lottie}, {&l.Caption, &d.Caption}, {&l.MaxImagePixels, &d.MaxImagePixels},
		{&l.MaxLottieLayers, &d.MaxLottieLayers}, {&l.MaxLottieKeyframes, &d.MaxLottieKeyframes}, {&l.MaxLottieFrames, &d.MaxLottieFrames}} {
		if *p.v <= 0 {
			*p.v = *p.def
		}
	}
	for _, p := range []struct{ v, def *int }{{&l.MaxImageSide, &d.MaxImageSide}, {&l.MaxGIFFrames, &d.MaxGIFFrames}, {&l.MaxLottieDepth, &d.MaxLottieDepth}} {
		if *p.v <= 0 {
			*p.v = *p.def
		}
	}
	l.SVG = l.SVG.WithDefaults()
	return l
}

// capFor returns the size cap of a format ("json" is capped by the larger of lottie and
// caption until it is known which it is).
func (l Limits) capFor(f Format) int64 {
	switch {
	case f.Name == "json":
		return max(l.Lottie, l.Caption)
	case f.Type == TypeImage || f.Type == TypeGIF:
		return l.Image
	case f.Type == TypeVideo:
		return max(l.Video, l.Audio) // an MP4 or WebM may turn out to be audio only
	case f.Type == TypeAudio:
		return l.Audio
	case f.Type == TypeFont:
		return l.Font
	case f.Type == TypeLottie:
		return l.Lottie
	case f.Type == TypeCaption:
		return l.Caption
	}
	return 0
}

// typeCap is the cap of a final asset type.
func (l Limits) typeCap(typ string) int64 {
	return l.capFor(Format{Type: typ})
}

// ActiveReferences tells whether an active export still uses an asset (export.References
// implements it, over the database); without one, nothing is referenced by exports.
type ActiveReferences interface {
	ActiveExportReferences(ctx context.Context, workspaceID, assetID, fileKey string) (bool, error)
}

type noReferences struct{}

func (noReferences) ActiveExportReferences(context.Context, string, string, string) (bool, error) {
	return false, nil
}

// Records is the database the store keeps asset records in (storage.DB implements it).
type Records interface {
	CreateAsset(a model.Asset, projectID string) error
	Asset(workspaceID, id string) (model.Asset, error)
	AssetRecord(id string) (model.Asset, error)
	AssetIDs() (map[string]bool, error)
	FontAssets() ([]model.Asset, error)
	ReferenceVersion(workspaceID string) (uint64, error)
	SoftDeleteAssetIfUnchanged(workspaceID, id string, version uint64) (model.Asset, error)
	BindAsset(workspaceID, projectID, assetID string) error
	UnbindAsset(workspaceID, projectID, assetID string) error
	ListProjectAssets(workspaceID, projectID string, pageSize int, cursor string) ([]model.Asset, string, error)
	ListAssets(workspaceID string, pageSize int, cursor string) ([]model.Asset, string, error)
	Project(workspaceID, id string) (model.Project, error)
	EachProjectState(workspaceID string, fn func(projectID string, state []byte) error) error
}

// DefaultLinkTTL is how long a signed file link (fileUrl) stays valid by default (Config.LinkTTL).
const DefaultLinkTTL = 24 * time.Hour

// Config configures a Store. Zero values take the documented defaults.
type Config struct {
	// Dir is the files area, e.g. <data-dir>/files. Uploads stream into Dir/tmp and are
	// renamed to Dir/<fileKey>.
	Dir string
	// PublicURL is the base of the signed links (fileUrl = PublicURL + "/files/" + fileKey +
	// "?exp=...&sig=...").
	PublicURL string
	// LinkTTL is how long a fileUrl stays valid (default DefaultLinkTTL).
	LinkTTL time.Duration
	// Limits are the upload caps; zero fields take DefaultLimits.
	Limits Limits
	// FFprobe is the path of an ffprobe binary used only when the Go parsers cannot tell a
	// media file's duration or size; empty disables it.
	FFprobe string
	// References reports active exports' uses of assets; nil means none.
	References ActiveReferences
	// Now returns the current time; time.Now when nil.
	Now func() time.Time
	// Logger gets warnings; slog.Default() when nil.
	Logger *slog.Logger
	// OnFont, when set, is called with the stored path of every font uploaded, after its
	// record commits (the server adds it to the text renderer's font library).
	OnFont func(path string)
	// Space refuses uploads (STORAGE_FULL) while the files area's filesystem is below its
	// free-space floor, counting the declared length; nil refuses none. A write that fails
	// for lack of space is STORAGE_FULL either way.
	Space *diskspace.Guard
	// Metrics counts the uploads stored; nil counts nothing.
	Metrics Metrics
	// Blobs, when set, keeps the files in an object store every node reads (--blob-store
	// nats): an upload is put there before its record commits, reads fetch a missing file
	// into Dir, deletes remove the object. nil: Dir holds the only copy.
	Blobs *blob.Store
	// Shared says Dir is shared by several nodes (--blob-store DIR): Recover then leaves
	// temp files and record-less asset directories younger than SharedGrace alone, as
	// they may be another node's upload in progress.
	Shared bool
	// SharedGrace, when positive, replaces the constant SharedGrace (app's
	// BlobSettings.SweepGrace).
	SharedGrace time.Duration
}

// SharedGrace is how old a temp file or record-less asset directory of a shared files
// area must be before Recover removes it (Config.Shared).
const SharedGrace = time.Hour

// Metrics counts stored uploads; *metrics.Metrics implements it.
type Metrics interface {
	// Uploaded counts one upload stored (its record committed) of kind (an asset Type).
	Uploaded(kind string, bytes int64)
}

// Store keeps uploaded files on disk and their records in the database.
//
// Layout: a file's fileKey is "assets/<workspaceId>/<assetId>/<name>", where name is the
// uploaded file name reduced to [A-Za-z0-9._-] (at most 100 bytes, "file" when nothing is
// left). The key is stable for the asset's life and is stored at Dir/<fileKey>; its link
// is PublicURL/files/<fileKey>?exp=&sig=. The caller's original name is only metadata.
type Store struct {
	cfg    Config
	lim    Limits
	rec    Records
	signer *signedlink.Signer
	refs   ActiveReferences
	log    *slog.Logger
	now    func() time.Time
	// decodes admits the full decodes of uploaded images one or two at a time, so the
	// memory of decoding (bounded per image by the pixel limits) is bounded overall
	decodes chan struct{}
}

// NewStore returns a store over rec and signer, creating the files area if needed.
func NewStore(cfg Config, rec Records, signer *signedlink.Signer) (*Store, error) {
	if cfg.Dir == "" || rec == nil || signer == nil {
		return nil, errors.New("assets: Dir, records and signer are required")
	}
	if cfg.LinkTTL <= 0 {
		cfg.LinkTTL = DefaultLinkTTL
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	cfg.PublicURL = strings.TrimRight(cfg.PublicURL, "/")
	s := &Store{cfg: cfg, lim: cfg.Limits.withDefaults(), rec: rec, signer: signer, refs: cfg.References,
		log: cfg.Logger, now: cfg.Now, decodes: make(chan struct{}, 2)}
	if s.refs == nil {
		s.refs = noReferences{}
	}
	for _, d := range []string{s.tmpDir(), filepath.Join(cfg.Dir, "assets")} {
		if err := os.MkdirAll(d, 0o750); err != nil {
			return nil, fmt.Errorf("create files area: %w", err)
		}
	}
	return s, nil
}

// Limits returns the effective limits.
func (s *Store) Limits() Limits { return s.lim }

func (s *Store) tmpDir() string { return filepath.Join(s.cfg.Dir, "tmp") }

// filePath is where a file key lives on disk. Keys come from records, never from requests.
func (s *Store) filePath(key string) string { return filepath.Join(s.cfg.Dir, filepath.FromSlash(key)) }

// Upload is one POST /v1/uploads.
type Upload struct {
	WorkspaceID string
	ProjectID   string // optional: bind the asset to this project of the workspace
	FileName    string // as sent; sanitised by the store
	ContentType string // as sent; "" or application/octet-stream declares nothing
	// Length is the declared body length, or -1 when unknown (chunked). A declared length
	// over the kind's cap is refused without reading the rest.
	Length int64
	Body   io.Reader
}

// CleanFileName makes an uploaded file name safe to keep and show: percent-decoded when it
// decodes to UTF-8, invalid UTF-8 replaced, the last path element only, control, format
// and bidi characters removed (UnsafeNameRune), surrounding spaces trimmed; "file" when
// nothing is left.
// It is never used as a path.
func CleanFileName(name string) string {
	if strings.Contains(name, "%") {
		if d, err := url.PathUnescape(name); err == nil && utf8.ValidString(d) {
			name = d
		}
	}
	name = strings.ToValidUTF8(name, "\uFFFD")
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	name = strings.Map(func(r rune) rune {
		if UnsafeNameRune(r) {
			return -1
		}
		return r
	}, name)
	name = strings.TrimSpace(name)
	if strings.Trim(name, ".") == "" {
		return "file"
	}
	return name
}

// diskName reduces a clean file name to the characters used in file keys.
func diskName(clean string) string {
	var b strings.Builder
	for _, r := range clean {
		switch {
		case r < utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r) || r == '.' || r == '-' || r == '_'):
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	n := strings.TrimLeft(b.String(), "._")
	if len(n) > 100 {
		ext := filepath.Ext(n)
		if len(ext) > 16 {
			ext = ""
		}
		n = n[:100-len(ext)] + ext
	}
	if strings.Trim(n, "._-") == "" {
		return "file"
	}
	return n
}

// Upload streams a body into the files area and records it as an asset. The body goes to
// a temp file; its first bytes decide the kind and so the size cap, which is enforced
// while streaming (413, nothing stored); the file is probed, synced and renamed into
// place, and only then is the record committed (with the project binding when asked).
// Any failure removes the temp file. Below the free-space floor (Config.Space), or when a
// write fails for lack of space, the upload is refused with STORAGE_FULL.
func (s *Store) Upload(ctx context.Context, up Upload) (model.Asset, error) {
	if err := s.cfg.Space.Admit(up.Length); err != nil {
		return model.Asset{}, err
	}
	a, err := s.upload(ctx, up)
	return a, diskspace.Refuse(err)
}

func (s *Store) upload(ctx context.Context, up Upload) (model.Asset, error) {
	if up.ProjectID != "" {
		if _, err := s.rec.Project(up.WorkspaceID, up.ProjectID); err != nil {
			return model.Asset{}, recordError(err, up.ProjectID, "")
		}
	}
	name := CleanFileName(up.FileName)
	tmp, err := os.CreateTemp(s.tmpDir(), "upload-*.part")
	if err != nil {
		return model.Asset{}, err
	}
	tmpName := tmp.Name()
	keep := false
	defer func() {
		if !keep {
			_ = tmp.Close()
			_ = os.Remove(tmpName)
		}
	}()

	buf := make([]byte, 128<<10)
	n, err := io.ReadFull(up.Body, buf[:sniffLen])
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return model.Asset{}, bodyError(err)
	}
	if n == 0 {
		return model.Asset{}, CodeBodyRequired.New("the upload body is empty; send the file's bytes as the body")
	}
	head := buf[:n]
	format, ok := Sniff(head)
	if !ok {
		return model.Asset{}, CodeTypeUnknown.New("the file's bytes are of no kind cutroom takes (declared Content-Type %q); "+
			"supported: png, jpeg, webp, gif, svg, mp4, mov, webm, mkv, mp3, aac, wav, m4a, ogg, opus, flac, ttf, otf, woff, woff2, lottie json, caption json, srt, vtt",
			up.ContentType)
	}
	if !Compatible(up.ContentType, format) {
		return model.Asset{}, mismatch(up.ContentType, format)
	}
	limit := s.lim.capFor(format)
	if up.Length > limit {
		return model.Asset{}, tooLarge(format, limit)
	}
	if _, err := tmp.Write(head); err != nil {
		return model.Asset{}, err
	}
	size := int64(n)
	if int64(n) == sniffLen { // there may be more
		m, err := copyCtx(ctx, tmp, io.LimitReader(up.Body, limit-size+1), buf)
		size += m
		if err != nil {
			return model.Asset{}, err
		}
	}
	if size > limit {
		return model.Asset{}, tooLarge(format, limit)
	}
	if err := tmp.Sync(); err != nil {
		return model.Asset{}, err
	}
	p, err := s.probe(ctx, tmp, size, format)
	if err != nil {
		return model.Asset{}, err
	}
	if !Compatible(up.ContentType, p.format) {
		return model.Asset{}, mismatch(up.ContentType, p.format)
	}
	if c := s.lim.typeCap(p.format.Type); size > c {
		return model.Asset{}, tooLarge(p.format, c)
	}
	if err := tmp.Close(); err != nil {
		return model.Asset{}, err
	}

	id := uuid.NewString()
	key := "assets/" + up.WorkspaceID + "/" + id + "/" + diskName(name)
	final := s.filePath(key)
	if err := os.MkdirAll(filepath.Dir(final), 0o750); err != nil {
		return model.Asset{}, err
	}
	if err := os.Rename(tmpName, final); err != nil {
		_ = os.Remove(filepath.Dir(final))
		return model.Asset{}, err
	}
	keep = true
	syncDir(filepath.Dir(final))
	// the object store holds the file before its record says it exists
	if err := s.cfg.Blobs.Put(ctx, final); err != nil {
		_ = os.RemoveAll(filepath.Dir(final))
		return model.Asset{}, err
	}
	a := model.Asset{ID: id, WorkspaceID: up.WorkspaceID, Type: p.format.Type, Source: SourceUpload, Filename: name,
		MimeType: p.format.MimeType, Size: size, FileKey: key, Width: p.width, Height: p.height, Duration: p.duration,
		CreatedAt: s.now().UTC()}
	if err := s.rec.CreateAsset(a, up.ProjectID); err != nil {
		_ = os.RemoveAll(filepath.Dir(final))
		s.cfg.Blobs.Drop(final)
		return model.Asset{}, recordError(err, up.ProjectID, a.ID)
	}
	if s.cfg.Metrics != nil {
		s.cfg.Metrics.Uploaded(a.Type, a.Size)
	}
	if a.Type == TypeFont && s.cfg.OnFont != nil {
		// the font library reads the file now and the cluster's jobs name it later: its
		// local copy is kept (keepFont)
		if err := s.keepFont(context.Background(), final); err != nil {
			s.log.Warn("uploaded font not loaded", "asset", a.ID, "err", err)
		} else {
			s.cfg.OnFont(final)
		}
	}
	return a, nil
}

// keepFont makes an uploaded font's file present and keeps its local copy for the
// store's life (the font library and cluster jobs name it by path), the fetch bounded by
// ctx and fetchTimeout.
func (s *Store) keepFont(ctx context.Context, path string) error {
	_, err := s.fetchNow(ctx, path) // never released
	return err
}

// fetchNow makes a file present where no request or render bounds the fetch: ctx (which
// may never end) and fetchTimeout bound it.
func (s *Store) fetchNow(ctx context.Context, path string) (release func(), err error) {
	ctx, cancel := context.WithTimeout(ctx, fetchTimeout)
	defer cancel()
	return s.cfg.Blobs.Fetch(ctx, path)
}

// fetchTimeout bounds fetching one file from the object store where no request or render
// bounds it (an uploaded font at start).
const fetchTimeout = 5 * time.Minute

// FontFiles returns the stored paths of the live uploaded fonts, of every workspace, but
// those known reports (the font library has them already; nil: none), each made present
// through the object store and kept (keepFont), for loading into the font library: at
// start, and on every node when the database's font generation changes. A font whose file
// cannot be fetched is logged and counted in unfetched (try again later), not returned.
func (s *Store) FontFiles(ctx context.Context, known func(path string) bool) (paths []string, unfetched int, err error) {
	fonts, err := s.rec.FontAssets()
	if err != nil {
		return nil, 0, err
	}
	for _, a := range fonts {
		p := s.filePath(a.FileKey)
		if known != nil && known(p) {
			continue
		}
		if err := s.keepFont(ctx, p); err != nil {
			s.log.Warn("uploaded font not loaded", "asset", a.ID, "err", err)
			unfetched++
			continue
		}
		paths = append(paths, p)
	}
	sort.Strings(paths)
	return paths, unfetched, nil
}

func mismatch(declared string, f Format) error {
	if f.Type == "" {
		f.Type = "lottie or caption"
	}
	return CodeTypeMismatch.New("the declared Content-Type %q contradicts the file's bytes, which are %s (%s, asset type %s)",
		declared, f.Name, f.MimeType, f.Type)
}

func tooLarge(f Format, limit int64) error {
	what := f.Type
	if what == "" {
		what = "lottie/caption JSON"
	}
	return CodeTooLarge.New("the %s upload (%s) is larger than the %s cap for %s files; nothing was stored",
		what, f.Name, humanBytes(limit), what)
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

func bodyError(err error) error {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return CodeTooLarge.New("the upload is larger than the %d bytes accepted", mbe.Limit)
	}
	return CodeBodyUnreadable.New("the upload body could not be read: %v", err)
}

// copyCtx copies src to dst through buf, stopping when ctx ends.
func copyCtx(ctx context.Context, dst io.Writer, src io.Reader, buf []byte) (int64, error) {
	var n int64
	for {
		if err := ctx.Err(); err != nil {
			return n, bodyError(err)
		}
		m, rerr := src.Read(buf)
		if m > 0 {
			if _, err := dst.Write(buf[:m]); err != nil {
				return n, err
			}
			n += int64(m)
		}
		if rerr == io.EOF {
			return n, nil
		}
		if rerr != nil {
			return n, bodyError(rerr)
		}
	}
}

// syncDir flushes a directory entry (a rename) to disk; errors are ignored where the
// platform cannot sync directories.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
}

// Asset returns a live asset of a workspace.
func (s *Store) Asset(_ context.Context, workspaceID, id string) (model.Asset, error) {
	a, err := s.rec.Asset(workspaceID, id)
	return a, recordError(err, "", id)
}

// ProjectAssets returns a page of a project's live assets, most recently bound first.
func (s *Store) ProjectAssets(_ context.Context, workspaceID, projectID string, pageSize int, cursor string) ([]model.Asset, string, error) {
	as, next, err := s.rec.ListProjectAssets(workspaceID, projectID, pageSize, cursor)
	return as, next, recordError(err, projectID, "")
}

// WorkspaceAssets returns a page of a workspace's live assets, newest upload first, bound
// to a project or not.
func (s *Store) WorkspaceAssets(_ context.Context, workspaceID string, pageSize int, cursor string) ([]model.Asset, string, error) {
	as, next, err := s.rec.ListAssets(workspaceID, pageSize, cursor)
	return as, next, recordError(err, "", "")
}

// BindAsset binds a live asset to a project; binding twice is harmless.
func (s *Store) BindAsset(_ context.Context, workspaceID, projectID, assetID string) error {
	return recordError(s.rec.BindAsset(workspaceID, projectID, assetID), projectID, assetID)
}

// UnbindAsset removes a project binding; the asset stays.
func (s *Store) UnbindAsset(_ context.Context, workspaceID, projectID, assetID string) error {
	return recordError(s.rec.UnbindAsset(workspaceID, projectID, assetID), projectID, assetID)
}

// FilePath is the URL path of an asset's file: "/files/" + fileKey (file keys contain only
// URL-safe characters).
func FilePath(fileKey string) string { return "/files/" + fileKey }

// FileURL returns a fresh signed link to an asset's file, valid for the configured TTL.
func (s *Store) FileURL(a model.Asset) string {
	return s.cfg.PublicURL + s.signer.Sign(s.basePath()+FilePath(a.FileKey), s.cfg.LinkTTL)
}

// basePath is the path part of PublicURL ("" for a server at the root).
func (s *Store) basePath() string {
	if u, err := url.Parse(s.cfg.PublicURL); err == nil {
		return strings.TrimRight(u.EscapedPath(), "/")
	}
	return ""
}

// File is an open stored file with what is needed to serve it.
type File struct {
	Content  io.ReadSeekCloser
	Size     int64
	ModTime  time.Time
	MimeType string
	// Filename is the asset's clean file name, for Content-Disposition.
	Filename string
	// Inline tells whether browsers may show the file in place (images other than SVG,
	// video, audio, fonts); SVG, Lottie and captions are served as attachments.
	Inline bool
}

// OpenFile verifies a signed file link (the request's escaped URL path under the public
// base, its exp and sig query values) and opens the asset file it names (fetched from the
// object store when this node has no copy). Tampering gives LINK_INVALID, expiry
// LINK_EXPIRED (both before any lookup); a deleted asset gives ASSET_NOT_FOUND.
func (s *Store) OpenFile(ctx context.Context, requestPath, exp, sig string) (*File, error) {
	if err := s.signer.Verify(s.basePath()+requestPath, exp, sig); err != nil {
		return nil, err
	}
	key := strings.TrimPrefix(requestPath, "/files/")
	a, err := s.assetByKey("", key)
	if err != nil {
		return nil, err
	}
	f, err := s.cfg.Blobs.Open(ctx, s.filePath(a.FileKey))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			s.log.Warn("asset file missing", "asset", a.ID, "fileKey", a.FileKey)
			return nil, CodeNotFound.New("the file of asset %s is missing", a.ID)
		}
		return nil, err
	}
	inline := a.MimeType != "image/svg+xml" && (a.Type == TypeImage || a.Type == TypeGIF || a.Type == TypeVideo || a.Type == TypeAudio || a.Type == TypeFont)
	return &File{Content: f, Size: a.Size, ModTime: a.CreatedAt, MimeType: a.MimeType, Filename: a.Filename, Inline: inline}, nil
}

// assetByKey finds the live asset a file key names ("assets/<ws>/<id>/<name>"), of
// workspaceID when it is not empty.
func (s *Store) assetByKey(workspaceID, key string) (model.Asset, error) {
	parts := strings.Split(key, "/")
	notFound := CodeNotFound.New("no asset has the file key %q", truncate(key, 200))
	if len(parts) != 4 || parts[0] != "assets" || (workspaceID != "" && parts[1] != workspaceID) {
		return model.Asset{}, notFound
	}
	if _, err := uuid.Parse(parts[2]); err != nil {
		return model.Asset{}, notFound
	}
	a, err := s.rec.AssetRecord(parts[2])
	if err != nil {
		return model.Asset{}, notFound
	}
	if a.FileKey != key || a.DeletedAt != nil || a.WorkspaceID != parts[1] {
		return model.Asset{}, notFound
	}
	return a, nil
}

// keyFromURL returns the file key a link to this server's files names: the part of the
// URL path after "/files/" when it starts with "assets/". Links are matched by path only,
// so they survive a change of public URL.
func keyFromURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	i := strings.Index(u.Path, "/files/assets/")
	if i < 0 {
		return ""
	}
	return u.Path[i+len("/files/"):]
}

// Resolver finds the local file of an editor asset. It is an alias of the function type, as
// media.Resolver is, so a resolver made here (Prefetch's) is the media's without either
// package importing the other.
type Resolver = func(a *editor.Asset) (path string, err error)

// Resolve finds the local file of an editor asset for a workspace's render: an uploaded
// asset whose fileKey equals the editor asset's remoteKey, or whose id equals the editor
// asset's id, or whose file link the remoteUrl is (by path). The asset must be live and
// the workspace's. It returns the file's path; ASSET_NOT_FOUND means the caller should
// fall back to fetching remoteUrl if it is allowed to.
func (s *Store) Resolve(workspaceID string, a *editor.Asset) (string, error) {
	if a == nil {
		return "", CodeNotFound.New("no asset")
	}
	if a.RemoteKey != "" {
		if rec, err := s.assetByKey(workspaceID, a.RemoteKey); err == nil {
			return s.filePath(rec.FileKey), nil
		}
	}
	if _, err := uuid.Parse(a.ID); err == nil {
		if rec, err := s.rec.Asset(workspaceID, a.ID); err == nil {
			return s.filePath(rec.FileKey), nil
		}
	}
	if key := keyFromURL(a.RemoteURL); key != "" {
		if rec, err := s.assetByKey(workspaceID, key); err == nil {
			return s.filePath(rec.FileKey), nil
		}
	}
	return "", CodeNotFound.New("asset %q is not an uploaded asset of this workspace", truncate(a.ID, 64))
}

// ResolveFor is Resolve for reading the files: a render's (or a preview's) resolver of a
// workspace's uploads whose files are present locally (fetched from the object store
// when this node has no copy) and kept until ctx ends.
func (s *Store) ResolveFor(ctx context.Context, workspaceID string) Resolver {
	if s.cfg.Blobs == nil {
		return func(a *editor.Asset) (string, error) { return s.Resolve(workspaceID, a) }
	}
	var mu sync.Mutex
	kept := map[string]bool{}
	return func(a *editor.Asset) (string, error) {
		p, err := s.Resolve(workspaceID, a)
		if err != nil {
			return "", err
		}
		if ctx.Err() != nil {
			// a resolver kept past its render (a preview's compositor, cached for the next
			// instant): the file is fetched again if it went, and not kept
			release, err := s.fetchNow(context.Background(), p)
			if err == nil {
				release()
			}
			return p, err
		}
		mu.Lock()
		held := kept[p]
		mu.Unlock()
		if held {
			return p, nil
		}
		release, err := s.cfg.Blobs.Fetch(ctx, p) // one fetch per file, whoever asks
		if err != nil {
			return "", err
		}
		mu.Lock()
		held, kept[p] = kept[p], true
		mu.Unlock()
		if held {
			release() // another resolve of p kept it meanwhile
		} else {
			context.AfterFunc(ctx, release)
		}
		return p, nil
	}
}

// stateRefs is the part of an editor state that can reference uploaded assets.
type stateRefs struct {
	Assets map[string]struct {
		ID        *string `json:"id"`
		RemoteURL *string `json:"remoteUrl"`
		RemoteKey *string `json:"remoteKey"`
	} `json:"assets"`
	GlobalBackground *struct {
		ImageAssetID *string `json:"imageAssetId"`
		ImageURL     *string `json:"imageUrl"`
	} `json:"globalBackground"`
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// StateReferences reports whether an editor state references the uploaded asset with the
// given id and fileKey: an editor asset keyed by or with the asset's id, with remoteKey ==
// fileKey, or with a remoteUrl to its file; or a global background image naming it. Export
// tasks use it to hold the assets of their state snapshots.
func StateReferences(state []byte, assetID, fileKey string) bool {
	return stateReferences(state, model.Asset{ID: assetID, FileKey: fileKey})
}

func stateReferences(state []byte, a model.Asset) bool {
	var st stateRefs
	if err := json.Unmarshal(state, &st); err != nil {
		// A state this view cannot read: be conservative and look for the id or key.
		return bytes.Contains(state, []byte(a.ID)) || bytes.Contains(state, []byte(a.FileKey))
	}
	for k, ea := range st.Assets {
		if k == a.ID || deref(ea.ID) == a.ID || deref(ea.RemoteKey) == a.FileKey || keyFromURL(deref(ea.RemoteURL)) == a.FileKey {
			return true
		}
	}
	if bg := st.GlobalBackground; bg != nil {
		if deref(bg.ImageAssetID) == a.ID || keyFromURL(deref(bg.ImageURL)) == a.FileKey {
			return true
		}
	}
	return false
}

// DeleteAsset soft-deletes a live asset of a workspace. It is refused with
// ASSET_REFERENCED while the current state of one of the workspace's projects references
// the asset or an active export does. The check reads the states outside of any write
// transaction, and the delete commits only if no editor state of the workspace was written
// since the check began (storage.ReferenceVersion); otherwise the check runs again, up to
// deleteAttempts times, then the delete fails with ASSET_BUSY.
func (s *Store) DeleteAsset(ctx context.Context, workspaceID, id string) error {
	a, err := s.rec.Asset(workspaceID, id)
	if err != nil {
		return recordError(err, "", id)
	}
	for range deleteAttempts {
		version, err := s.rec.ReferenceVersion(workspaceID)
		if err != nil {
			return err
		}
		if err := s.unreferenced(ctx, workspaceID, a); err != nil {
			return err
		}
		_, err = s.rec.SoftDeleteAssetIfUnchanged(workspaceID, id, version)
		if err == nil && s.cfg.Blobs != nil {
			// with an object store the file goes with its record (on the local disk alone,
			// a soft-deleted file stays)
			s.cfg.Blobs.Drop(s.filePath(a.FileKey))
		}
		if !errors.Is(err, storage.ErrReferencesChanged) {
			return recordError(err, "", id)
		}
	}
	return CodeBusy.New("the projects and exports of workspace %s kept changing while asset %s was checked for references; try again", workspaceID, id)
}

// deleteAttempts is how many times DeleteAsset checks the references of an asset while
// editor states keep being written.
const deleteAttempts = 5

// unreferenced checks that no project state of the workspace and no active export
// references a, with ASSET_REFERENCED otherwise.
func (s *Store) unreferenced(ctx context.Context, workspaceID string, a model.Asset) error {
	errFound := errors.New("found")
	var project string
	err := s.rec.EachProjectState(workspaceID, func(pid string, state []byte) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if stateReferences(state, a) {
			project = pid
			return errFound
		}
		return nil
	})
	switch {
	case errors.Is(err, errFound):
		return CodeReferenced.New("asset %s is referenced by the current state of project %s; remove it from the state first", a.ID, project)
	case err != nil:
		return err
	}
	busy, err := s.refs.ActiveExportReferences(ctx, workspaceID, a.ID, a.FileKey)
	if err != nil {
		return err
	}
	if busy {
		return CodeReferenced.New("asset %s is used by an active export; wait for it to finish or cancel it", a.ID)
	}
	return nil
}

// mayBeInProgress reports whether an entry of a shared files area (Config.Shared) is young
// enough to be another node's upload in progress.
func (s *Store) mayBeInProgress(e fs.DirEntry) bool {
	if !s.cfg.Shared {
		return false
	}
	info, err := e.Info()
	grace := s.cfg.SharedGrace
	if grace <= 0 {
		grace = SharedGrace
	}
	return err == nil && s.now().Sub(info.ModTime()) < grace
}

// Recover sweeps the files area after a crash: it removes every temp file, and every
// asset directory whose asset has no record (a crash between the rename and the commit),
// and stray files beside a recorded file. Call it before serving uploads. In a shared files
// area (Config.Shared) it leaves what is younger than SharedGrace: another node's upload
// may be in progress.
func (s *Store) Recover() (removed int, err error) { return s.recover(true) }

// SweepShared is Recover for a shared files area (Config.Shared) while serving, which the
// App's janitor runs: another node's crash leaves files that no start of this node
// sweeps. It leaves what is younger than SharedGrace, and reads no record per asset (the
// stray files beside a recorded file, which Recover removes, are left to a start): one
// read of the asset ids and a listing of the directories.
func (s *Store) SweepShared() (removed int, err error) {
	if !s.cfg.Shared {
		return 0, errors.New("assets: SweepShared is for a shared files area")
	}
	return s.recover(false)
}

// recover is Recover; strays: remove the stray files beside a recorded file too.
func (s *Store) recover(strays bool) (removed int, err error) {
	entries, err := os.ReadDir(s.tmpDir())
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return 0, err
	}
	for _, e := range entries {
		if s.mayBeInProgress(e) {
			continue
		}
		if err := os.RemoveAll(filepath.Join(s.tmpDir(), e.Name())); err == nil {
			removed++
		}
	}
	ids, err := s.rec.AssetIDs()
	if err != nil {
		return removed, err
	}
	root := filepath.Join(s.cfg.Dir, "assets")
	wss, err := os.ReadDir(root)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return removed, err
	}
	for _, ws := range wss {
		wsDir := filepath.Join(root, ws.Name())
		assetDirs, err := os.ReadDir(wsDir)
		if err != nil {
			continue
		}
		for _, ad := range assetDirs {
			dir := filepath.Join(wsDir, ad.Name())
			if !ids[ad.Name()] {
				if s.mayBeInProgress(ad) {
					continue
				}
				if err := os.RemoveAll(dir); err == nil {
					removed++
					s.log.Info("removed an asset file without a record", "dir", dir)
				}
				continue
			}
			if !strays {
				continue
			}
			rec, err := s.rec.AssetRecord(ad.Name())
			if err != nil {
				continue
			}
			files, _ := os.ReadDir(dir)
			for _, f := range files {
				if "assets/"+ws.Name()+"/"+ad.Name()+"/"+f.Name() != rec.FileKey {
					if err := os.RemoveAll(filepath.Join(dir, f.Name())); err == nil {
						removed++
					}
				}
			}
		}
	}
	return removed, nil
}
