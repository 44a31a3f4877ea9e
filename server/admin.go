package server

import (
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/cutroom/cutroom/storage"
	"github.com/gin-gonic/gin"
)

// The operator's routes live under /admin/, outside the client API (/v1): they are served
// only when Config.AdminToken is set (otherwise every /admin/ path is 404 ROUTE_NOT_FOUND),
// take that token alone as `Authorization: Bearer <token>` (no API key works there) and can
// be kept off a reverse proxy by one prefix.

// AdminBackupPath is the route of online backups (`cutroom backup`).
const AdminBackupPath = "/admin/backup"

// backupWriteStall bounds each write of a backup to the client: a client that stops reading
// for this long is cut off, so its snapshot (a read transaction) does not stay open.
const backupWriteStall = time.Minute

// Backups begins consistent snapshots of the database (storage.DB).
type Backups interface {
	Snapshot() (*storage.Snapshot, error)
}

// adminRoutes registers the /admin/ routes when an admin token is configured.
func (s *Server) adminRoutes() {
	if s.cfg.AdminToken == "" || s.deps.Backups == nil {
		return
	}
	sum := sha256.Sum256([]byte(s.cfg.AdminToken))
	admin := s.engine.Group("/admin", s.requireAdmin(sum))
	admin.GET("/backup", s.backup)
}

// requireAdmin refuses a request whose bearer token is not the admin token; the comparison
// is of SHA-256 sums in constant time, so neither the token nor its length leaks.
func (s *Server) requireAdmin(want [32]byte) gin.HandlerFunc {
	return func(c *gin.Context) {
		auth := strings.TrimSpace(c.GetHeader("Authorization"))
		var token string
		if len(auth) > 7 && strings.EqualFold(auth[:7], "bearer ") {
			token = strings.TrimSpace(auth[7:])
		}
		got := sha256.Sum256([]byte(token))
		if token == "" || subtle.ConstantTimeCompare(got[:], want[:]) != 1 {
			s.fail(c, errAdminTokenInvalid.New("the admin token is required: send it as Authorization: Bearer <token> (API keys do not work here)"))
		}
	}
}

// backup streams a consistent snapshot of the database (GET /admin/backup): a complete
// bbolt file as of the moment the request began, with its size. Writers go on meanwhile.
func (s *Server) backup(c *gin.Context) {
	snap, err := s.deps.Backups.Snapshot()
	if errors.Is(err, storage.ErrNotBBolt) {
		s.fail(c, errBackupNotSupported.New("this server keeps its records in PostgreSQL (--database): back them up with "+
			"pg_dump (pg_dump --format=custom --file=cutroom.dump URL) and restore them with pg_restore; see docs/nodes.md"))
		return
	}
	if err != nil {
		s.fail(c, fmt.Errorf("begin backup: %w", err))
		return
	}
	defer snap.Close()
	start := time.Now()
	h := c.Writer.Header()
	h.Set("Content-Type", "application/octet-stream")
	h.Set("Content-Length", strconv.FormatInt(snap.Size(), 10))
	h.Set("Content-Disposition", fmt.Sprintf(`attachment; filename="cutroom-%s.db"`, start.UTC().Format("20060102T150405Z")))
	h.Set("Cache-Control", "no-store")
	h.Set("Cutroom-Schema-Version", strconv.Itoa(snap.SchemaVersion()))
	c.Status(http.StatusOK)
	w := &stallWriter{w: c.Writer, ctl: http.NewResponseController(c.Writer)}
	n, err := snap.WriteTo(w)
	if err != nil {
		// The status is sent: the client sees a body shorter than Content-Length.
		s.log.Warn("backup cut off", "bytes", n, "of", snap.Size(), "err", err)
		panic(http.ErrAbortHandler)
	}
	// The connection may serve further requests: no deadline left behind.
	_ = w.ctl.SetWriteDeadline(time.Time{})
	s.log.Info("backup sent", "bytes", n, "duration", time.Since(start))
}

// stallWriter gives each write backupWriteStall to complete.
type stallWriter struct {
	w   http.ResponseWriter
	ctl *http.ResponseController
}

func (sw *stallWriter) Write(p []byte) (int, error) {
	_ = sw.ctl.SetWriteDeadline(time.Now().Add(backupWriteStall))
	return sw.w.Write(p)
}
