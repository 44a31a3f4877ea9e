package assets

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"
)

// Fetch modes (--fetch-remote): whether renders fetch editor assets from their http(s)
// remoteUrl when the workspace has no such upload.
const (
	// FetchOff fetches nothing: a state whose assets are not uploaded is refused at create
	// (right for air-gapped installs). The default.
	FetchOff = "off"
	// FetchAllowlist fetches from hosts matching RemoteConfig.Hosts only.
	FetchAllowlist = "allowlist"
	// FetchPublic fetches from any host the outbound guard lets through.
	FetchPublic = "public"
)

// Defaults of RemoteConfig (the serve flags').
const (
	DefaultFetchMode         = FetchOff
	DefaultFetchTimeout      = 60 * time.Second
	DefaultFetchCacheBytes   = int64(2 << 30)
	DefaultFetchMaxRedirects = 5
)

// RemoteConfig configures a Remote. Zero values take the Default... constants.
type RemoteConfig struct {
	// Mode is FetchOff (""), FetchAllowlist or FetchPublic.
	Mode string
	// Hosts are the patterns FetchAllowlist allows: a host name ("cdn.example.com",
	// matched exactly, case-insensitively) or "*." and a domain ("*.example.com": any name
	// under it, not the domain itself); a port is not part of a pattern.
	Hosts []string
	// Dial opens every connection: the outbound guard's DialContext, which refuses
	// private, loopback and metadata addresses at connect time (required unless Mode is off).
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
	// Timeout bounds one fetch, body included (DefaultFetchTimeout).
	Timeout time.Duration
	// MaxRedirects is how many redirects a fetch follows, each checked again
	// (DefaultFetchMaxRedirects).
	MaxRedirects int
	// CacheDir holds fetched files (required unless Mode is off); CacheBytes bounds its
	// files' total size (DefaultFetchCacheBytes), the least recently used going first.
	CacheDir   string
	CacheBytes int64
	// Limits gives the per-kind size caps (the upload caps; zero fields take defaults).
	Limits Limits
}

// Remote fetches editor assets from their remoteUrl under a policy, into a disk cache. It
// is safe for concurrent use. A nil *Remote fetches nothing (FetchOff).
type Remote struct {
	cfg    RemoteConfig
	lim    Limits
	client *http.Client
	cache  *fetchCache
}

// NewRemote returns the fetcher of cfg, or nil when cfg.Mode is off.
func NewRemote(cfg RemoteConfig) (*Remote, error) {
	switch cfg.Mode {
	case "", FetchOff:
		return nil, nil
	case FetchAllowlist, FetchPublic:
	default:
		return nil, fmt.Errorf("fetch mode %q is not off, allowlist or public", cfg.Mode)
	}
	if cfg.Dial == nil || cfg.CacheDir == "" {
		return nil, errors.New("assets: a remote fetcher needs Dial (the outbound guard's) and CacheDir")
	}
	for _, h := range cfg.Hosts {
		if strings.TrimSpace(h) == "" || strings.ContainsAny(h, "/:@ ") {
			return nil, fmt.Errorf("fetch host pattern %q is not a host name or *.domain", h)
		}
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultFetchTimeout
	}
	if cfg.MaxRedirects <= 0 {
		cfg.MaxRedirects = DefaultFetchMaxRedirects
	}
	if cfg.CacheBytes <= 0 {
		cfg.CacheBytes = DefaultFetchCacheBytes
	}
	cache, err := openFetchCache(cfg.CacheDir, cfg.CacheBytes)
	if err != nil {
		return nil, err
	}
	r := &Remote{cfg: cfg, lim: cfg.Limits.withDefaults(), cache: cache}
	r.client = &http.Client{
		Transport: &http.Transport{
			Proxy:                 nil,
			DialContext:           cfg.Dial,
			ForceAttemptHTTP2:     true,
			MaxIdleConns:          16,
			IdleConnTimeout:       60 * time.Second,
			TLSHandshakeTimeout:   10 * time.Second,
			ResponseHeaderTimeout: cfg.Timeout,
		},
		Timeout: cfg.Timeout,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) > cfg.MaxRedirects {
				return fmt.Errorf("more than %d redirects", cfg.MaxRedirects)
			}
			// the new URL meets the policy again; its address is checked when dialled
			if err := r.Allowed(req.URL.String()); err != nil {
				return fmt.Errorf("redirect to %s: %w", req.URL.Redacted(), err)
			}
			return nil
		},
	}
	return r, nil
}

// IsRemoteURL reports whether raw is a URL a fetcher could fetch (http or https), whatever the
// policy: an asset with such a remoteUrl is a remote asset.
func IsRemoteURL(raw string) bool {
	u, err := url.Parse(raw)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// Allowed reports why the policy refuses to fetch raw, or nil: fetching off (a nil Remote),
// not an http(s) URL, user info, or (allowlist) a host no pattern matches. Addresses are
// checked when dialled, not here.
func (r *Remote) Allowed(raw string) error {
	if r == nil {
		return errors.New("fetching remote assets is off on this server (serve --fetch-remote)")
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return errors.New("not an absolute http or https URL")
	}
	if u.User != nil {
		return errors.New("URLs with user info are not fetched")
	}
	if r.cfg.Mode == FetchAllowlist && !hostMatches(u.Hostname(), r.cfg.Hosts) {
		return fmt.Errorf("host %q is not allowed (serve --fetch-hosts)", u.Hostname())
	}
	return nil
}

func hostMatches(host string, patterns []string) bool {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	for _, p := range patterns {
		p = strings.TrimSuffix(strings.ToLower(strings.TrimSpace(p)), ".")
		if d, ok := strings.CutPrefix(p, "*."); ok {
			if strings.HasSuffix(host, "."+d) {
				return true
			}
		} else if host == p {
			return true
		}
	}
	return false
}

// FetchError is a remote asset that could not be fetched: which, from where and why.
type FetchError struct {
	AssetID string
	URL     string
	Err     error
}

func (e *FetchError) Error() string {
	return fmt.Sprintf("asset %q (%s): %v", e.AssetID, e.URL, e.Err)
}

func (e *FetchError) Unwrap() error { return e.Err }

// Fetch returns the path of a local copy of raw's content, from the cache when the server
// confirms it (ETag or Last-Modified, answered 304) or fetched anew. The content's kind is
// decided from its first bytes, and its size is capped by that kind's cap as it streams.
func (r *Remote) Fetch(ctx context.Context, raw string) (string, error) {
	if err := r.Allowed(raw); err != nil {
		return "", err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, raw, nil)
	if err != nil {
		return "", err
	}
	req.Header.Set("User-Agent", "cutroom")
	cached, ok := r.cache.lookup(raw)
	if ok {
		if cached.ETag != "" {
			req.Header.Set("If-None-Match", cached.ETag)
		}
		if cached.LastModified != "" {
			req.Header.Set("If-Modified-Since", cached.LastModified)
		}
	}
	resp, err := r.client.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusNotModified && ok:
		if p, hit := r.cache.use(raw); hit {
			return p, nil
		}
		return "", errors.New("the server answered 304 for a file the cache no longer holds")
	case resp.StatusCode != http.StatusOK:
		return "", fmt.Errorf("the server answered %s", resp.Status)
	}
	tmp, err := os.CreateTemp(r.cache.dir, "fetch-*.tmp")
	if err != nil {
		return "", err
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()
	n, err := r.copyCapped(tmp, resp.Body)
	if err != nil {
		return "", err
	}
	if err := tmp.Sync(); err != nil {
		return "", err
	}
	if err := tmp.Close(); err != nil {
		return "", err
	}
	meta := cacheMeta{URL: raw, ETag: resp.Header.Get("ETag"), LastModified: resp.Header.Get("Last-Modified"), Size: n}
	return r.cache.put(tmp.Name(), meta)
}

// copyCapped streams body to w: the first bytes decide the kind and so the cap; more than
// the cap, or bytes of no kind cutroom renders, fail.
func (r *Remote) copyCapped(w io.Writer, body io.Reader) (int64, error) {
	head := make([]byte, sniffLen)
	n, err := io.ReadFull(body, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return 0, err
	}
	head = head[:n]
	f, ok := Sniff(head)
	if !ok || n == 0 {
		return 0, errors.New("the content is of no kind cutroom renders (decided from its bytes)")
	}
	limit := r.lim.capFor(f)
	if int64(n) > limit {
		return 0, fmt.Errorf("the %s file is larger than the %d bytes allowed for its kind", f.Name, limit)
	}
	if _, err := w.Write(head); err != nil {
		return 0, err
	}
	m, err := io.Copy(w, io.LimitReader(body, limit-int64(n)+1))
	total := int64(n) + m
	if err != nil {
		return 0, err
	}
	if total > limit {
		return 0, fmt.Errorf("the %s file is larger than the %d bytes allowed for its kind", f.Name, limit)
	}
	return total, nil
}
