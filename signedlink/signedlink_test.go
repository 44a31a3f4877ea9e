package signedlink_test

import (
	"bytes"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/cutroom/cutroom/apierr"
	"github.com/cutroom/cutroom/signedlink"
)

type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

var secret = bytes.Repeat([]byte("k"), 32)

// Links handed out before this package existed (signed by assets.Signer, the first
// implementation, with the same secret and clock) must stay valid: same format, same bytes.
func TestLinksSignedTheOldWayVerify(t *testing.T) {
	clk := &clock{time.Unix(1700000000, 0)}
	s, err := signedlink.NewSigner(secret, clk.now)
	if err != nil {
		t.Fatal(err)
	}
	const file = "/files/assets/ws_1/as_2/clip.mp4?exp=1700086400&sig=fb2a508d0a1bc1ee1d2cac0ad788e1be33f4103bf835143a8b9d95fa256e84f4"
	const output = "/outputs/task_1/my%20video.mp4?exp=1800000000&sig=a765727a71d50f6a8f5874c456090691fc0673e3170f07f280888bbe2daeee70"
	if got := s.Sign("/files/assets/ws_1/as_2/clip.mp4", 24*time.Hour); got != file {
		t.Fatalf("Sign = %s, want %s", got, file)
	}
	if got := s.SignUntil("/outputs/task_1/my%20video.mp4", time.Unix(1800000000, 0)); got != output {
		t.Fatalf("SignUntil = %s, want %s", got, output)
	}
	for _, link := range []string{file, output} {
		u, _ := url.Parse(link)
		if err := s.VerifyURL(u); err != nil {
			t.Errorf("%s: %v", link, err)
		}
	}
	if !s.Signed("/outputs/task_1/my%20video.mp4", 1800000000, output[len(output)-64:]) {
		t.Error("Signed refuses the output link")
	}
}

func TestRefusedLinks(t *testing.T) {
	clk := &clock{time.Unix(1700000000, 0)}
	s, _ := signedlink.NewSigner(secret, clk.now)
	link := s.Sign("/files/a.png", time.Minute)
	u, _ := url.Parse(link)
	q := u.Query()
	exp, sig := q.Get("exp"), q.Get("sig")
	other, _ := signedlink.NewSigner(bytes.Repeat([]byte("j"), 32), clk.now)
	flipped := "0" + sig[1:]
	if flipped == sig {
		flipped = "1" + sig[1:]
	}
	for name, err := range map[string]error{
		"other secret": other.Verify("/files/a.png", exp, sig),
		"other path":   s.Verify("/files/b.png", exp, sig),
		"other exp":    s.Verify("/files/a.png", "9"+exp, sig),
		"tampered sig": s.Verify("/files/a.png", exp, flipped),
		"short sig":    s.Verify("/files/a.png", exp, sig[:63]),
		"no exp":       s.Verify("/files/a.png", "", sig),
		"exp +1":       s.Verify("/files/a.png", "+"+exp, sig),
		"exp 0":        s.Verify("/files/a.png", "0", sig),
	} {
		if !signedlink.CodeInvalid.Is(err) || apierr.KindOf(err) != apierr.Forbidden {
			t.Errorf("%s: %v, want LINK_INVALID", name, err)
		}
	}
	if err := s.Verify("/files/a.png", exp, sig); err != nil {
		t.Fatal(err)
	}
	clk.t = clk.t.Add(time.Minute) // the expiry itself is past
	err := s.Verify("/files/a.png", exp, sig)
	if !signedlink.CodeExpired.Is(err) || apierr.KindOf(err) != apierr.Forbidden ||
		!strings.Contains(err.Error(), "expired at 2023-11-14T22:14:20Z") {
		t.Fatalf("%v, want LINK_EXPIRED", err)
	}
	if !s.Signed("/files/a.png", clk.t.Unix(), sig) {
		t.Error("Signed checks the signature alone, whatever the time")
	}
	if _, err := signedlink.NewSigner(secret[:31], nil); err == nil {
		t.Error("a short secret was taken")
	}
}
