package signedlink

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/url"
	"strconv"
	"time"

	"github.com/cutroom/cutroom/apierr"
)

// Codes of a refused link.
var (
	// CodeInvalid: a signed link was tampered with or is malformed.
	CodeInvalid = apierr.Define(apierr.Forbidden, "LINK_INVALID")
	// CodeExpired: a signed link's expiry has passed.
	CodeExpired = apierr.Define(apierr.Forbidden, "LINK_EXPIRED")
)

// MinSecretBytes is the shortest secret NewSigner takes.
const MinSecretBytes = 32

// Signer makes and checks links with one secret. It is safe for concurrent use.
type Signer struct {
	secret []byte
	now    func() time.Time
}

// NewSigner returns a signer with the given secret (at least MinSecretBytes; keep it stable
// across restarts, e.g. storage.DB.Secret) and clock (time.Now when nil).
func NewSigner(secret []byte, now func() time.Time) (*Signer, error) {
	if len(secret) < MinSecretBytes {
		return nil, errors.New("the link signing secret must be at least 32 bytes")
	}
	if now == nil {
		now = time.Now
	}
	return &Signer{secret: append([]byte(nil), secret...), now: now}, nil
}

func (s *Signer) mac(path string, exp int64) string {
	m := hmac.New(sha256.New, s.secret)
	m.Write([]byte(path))
	m.Write([]byte{'\n'})
	m.Write(strconv.AppendInt(nil, exp, 10))
	return hex.EncodeToString(m.Sum(nil))
}

// Sign returns path with the query "?exp=UNIX&sig=HEX" that makes it valid for ttl from
// now. path must be the escaped URL path the link will be requested with.
func (s *Signer) Sign(path string, ttl time.Duration) string {
	return s.SignUntil(path, s.now().Add(ttl))
}

// SignUntil returns path with the query that makes it valid until exp (whole seconds).
func (s *Signer) SignUntil(path string, exp time.Time) string {
	e := exp.Unix()
	return path + "?exp=" + strconv.FormatInt(e, 10) + "&sig=" + s.mac(path, e)
}

// Signed reports whether sig signs path with expiry exp, whatever the time now.
func (s *Signer) Signed(path string, exp int64, sig string) bool {
	return len(sig) == 64 && hmac.Equal([]byte(s.mac(path, exp)), []byte(sig))
}

// Verify checks a request for path with the exp and sig query values: a malformed or wrong
// signature is CodeInvalid, a correct one past its expiry CodeExpired.
func (s *Signer) Verify(path, exp, sig string) error {
	e, err := strconv.ParseInt(exp, 10, 64)
	if err != nil || e <= 0 || len(sig) != 64 || strconv.FormatInt(e, 10) != exp {
		return CodeInvalid.New("the link is not valid: its exp or sig is missing or malformed")
	}
	if !hmac.Equal([]byte(s.mac(path, e)), []byte(sig)) {
		return CodeInvalid.New("the link is not valid: its signature does not match")
	}
	if !s.now().Before(time.Unix(e, 0)) {
		return CodeExpired.New("the link expired at %s; ask the API for a fresh one", time.Unix(e, 0).UTC().Format(time.RFC3339))
	}
	return nil
}

// VerifyURL checks a request URL (its escaped path, exp and sig query values) with Verify.
func (s *Signer) VerifyURL(u *url.URL) error {
	q := u.Query()
	return s.Verify(u.EscapedPath(), q.Get("exp"), q.Get("sig"))
}
