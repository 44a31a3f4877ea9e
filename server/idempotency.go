package server

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/cutroom/cutroom/storage"
	"github.com/gin-gonic/gin"
)

// createFunc performs a create and returns its status and the created resource's JSON (the
// answer's data). When rec is not nil, rec.Status is already the status of a new resource:
// create must fill rec.Data with the same JSON it returns and store rec in the same
// transaction as the resource.
type createFunc func(rec *storage.IdempotencyRecord) (status int, data []byte, err error)

// idempotent runs create under the request's Idempotency-Key, if it has one: the same key
// and payload replay the first response byte for byte, another payload is refused with 422,
// and a repeat while the first is still being processed gets 409. Keys are scoped per API
// key and route. The record keeps the resource, not the answer: the first answer and every
// replay wrap it in the same envelope (writeData), so they are the same bytes.
func (s *Server) idempotent(c *gin.Context, body []byte, create createFunc) {
	key := c.GetHeader("Idempotency-Key")
	if key == "" {
		status, data, err := create(nil)
		s.writeCreated(c, status, data, err)
		return
	}
	if len(key) > 255 {
		s.fail(c, errInvalidIdempotencyKey.Field("Idempotency-Key", "Idempotency-Key must be 1..255 characters"))
		return
	}
	scope := hashParts(principal(c).Key.ID, c.Request.Method, c.Request.URL.Path, key)
	reqHash := payloadHash(body)

	if s.replay(c, scope, reqHash) {
		return
	}
	if !s.inflight.acquire(scope) {
		s.fail(c, errIdempotencyInFlight.New("a request with this Idempotency-Key is still being processed; retry after it completes"))
		return
	}
	defer s.inflight.release(scope)
	if s.replay(c, scope, reqHash) { // the first request finished while we waited
		return
	}
	now := s.now().UTC()
	rec := &storage.IdempotencyRecord{Scope: scope, RequestHash: reqHash, Status: http.StatusCreated,
		CreatedAt: now, ExpiresAt: now.Add(s.cfg.IdempotencyTTL)}
	status, data, err := create(rec)
	if errors.Is(err, storage.ErrIdempotencyKeyExists) {
		if s.replay(c, scope, reqHash) {
			return
		}
		err = errIdempotencyExists.Wrap(err, "idempotency key already used")
	}
	s.writeCreated(c, status, data, err)
}

// replay answers from a stored record; it reports whether it wrote a response.
func (s *Server) replay(c *gin.Context, scope, reqHash string) bool {
	rec, err := s.deps.Idempotency.Idempotency(scope)
	if err != nil {
		s.fail(c, err)
		return true
	}
	if rec == nil {
		return false
	}
	if rec.RequestHash != reqHash {
		s.fail(c, errIdempotencyReused.Field("Idempotency-Key",
			"this Idempotency-Key was used with a different request payload; use a new key for a new operation"))
		return true
	}
	c.Header("Idempotent-Replayed", "true")
	s.writeData(c, rec.Status, rec.Data)
	return true
}

func (s *Server) writeCreated(c *gin.Context, status int, data []byte, err error) {
	if err != nil {
		s.fail(c, err)
		return
	}
	s.writeData(c, status, data)
}

// writeData answers with the success envelope around a resource's JSON, as ok does around a
// value: the bytes are those ok writes for the value data was marshalled from.
func (s *Server) writeData(c *gin.Context, status int, data []byte) {
	s.ok(c, status, json.RawMessage(data), nil)
}

func hashParts(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// payloadHash identifies a request payload, ignoring insignificant white space.
func payloadHash(body []byte) string {
	var buf bytes.Buffer
	if json.Compact(&buf, body) == nil {
		body = buf.Bytes()
	}
	sum := sha256.Sum256(body)
	return hex.EncodeToString(sum[:])
}
