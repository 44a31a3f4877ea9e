package fontpack

import (
	"context"
	"crypto/sha512"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"
)

// DefaultRegistry is the npm registry the catalogue's packages are fetched from.
const DefaultRegistry = "https://registry.npmjs.org"

// packageScope is the npm scope of the catalogue: fontsource's packages hold every Google
// Fonts family (and a few others) as WOFF2 and WOFF files, one package per family.
const packageScope = "@fontsource/"

// ErrNotInCatalogue is the error of a family the catalogue has no package for.
var ErrNotInCatalogue = errors.New("fontpack: not in the web font catalogue")

// Catalogue fetches families from fontsource's packages on an npm registry.
type Catalogue struct {
	// Registry is the registry's base URL (default DefaultRegistry).
	Registry string
	// Client makes the requests; nil uses one with a 2-minute overall timeout per request
	// and the environment's proxy.
	Client *http.Client
	Limits Limits
}

func (c *Catalogue) registry() string {
	if c.Registry == "" {
		return DefaultRegistry
	}
	return strings.TrimRight(c.Registry, "/")
}

func (c *Catalogue) client() *http.Client {
	if c.Client != nil {
		return c.Client
	}
	return &http.Client{Timeout: 2 * time.Minute, Transport: &http.Transport{Proxy: http.ProxyFromEnvironment}}
}

// release is what the registry says of a package's latest version.
type release struct {
	pkg, version, tarball, integrity string
}

// latest asks the registry for the package of family's id and its latest version.
func (c *Catalogue) latest(ctx context.Context, family, id string) (release, error) {
	pkg := packageScope + id
	u := c.registry() + "/" + url.PathEscape(pkg)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return release{}, fmt.Errorf("fontpack: --registry: %w", err)
	}
	// the abbreviated metadata npm's installer asks for: versions and their dist only
	req.Header.Set("Accept", "application/vnd.npm.install-v1+json; q=1.0, application/json; q=0.8")
	resp, err := c.client().Do(req)
	if err != nil {
		return release{}, fmt.Errorf("fontpack: asking the registry for %s: %w", pkg, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound {
		return release{}, fmt.Errorf("%w: %q (the registry %s has no package %s)", ErrNotInCatalogue, family, c.registry(), pkg)
	}
	if resp.StatusCode != http.StatusOK {
		return release{}, fmt.Errorf("fontpack: the registry answered %s for %s", resp.Status, pkg)
	}
	var doc struct {
		DistTags map[string]string `json:"dist-tags"`
		Versions map[string]struct {
			Dist struct {
				Tarball   string `json:"tarball"`
				Integrity string `json:"integrity"`
			} `json:"dist"`
		} `json:"versions"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxMetaBytes)).Decode(&doc); err != nil {
		return release{}, fmt.Errorf("fontpack: the registry's metadata of %s: %w", pkg, err)
	}
	v := doc.DistTags["latest"]
	d, ok := doc.Versions[v]
	if !ok {
		return release{}, fmt.Errorf("fontpack: the registry's metadata of %s names no latest version", pkg)
	}
	return release{pkg: pkg, version: v, tarball: d.Dist.Tarball, integrity: d.Dist.Integrity}, nil
}

// download writes the release's tarball to path (at most MaxDownloadBytes) and checks it
// against the registry's integrity hash (sha512, as npm checks it).
func (c *Catalogue) download(ctx context.Context, rel release, path string, lim Limits) error {
	want, err := sha512Of(rel.integrity)
	if err != nil {
		return fmt.Errorf("fontpack: %s@%s: %w", rel.pkg, rel.version, err)
	}
	u, err := url.Parse(rel.tarball)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") {
		return fmt.Errorf("fontpack: %s@%s: tarball URL %q is not http(s)", rel.pkg, rel.version, rel.tarball)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rel.tarball, nil)
	if err != nil {
		return err
	}
	resp, err := c.client().Do(req)
	if err != nil {
		return fmt.Errorf("fontpack: downloading %s@%s: %w", rel.pkg, rel.version, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("fontpack: downloading %s@%s: %s", rel.pkg, rel.version, resp.Status)
	}
	fh, err := os.Create(path)
	if err != nil {
		return err
	}
	h := sha512.New()
	_, err = io.Copy(io.MultiWriter(fh, h), &bounded{r: resp.Body, left: lim.MaxDownloadBytes, what: "download"})
	if cerr := fh.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("fontpack: downloading %s@%s: %w", rel.pkg, rel.version, err)
	}
	if !sumEqual(h, want) {
		return fmt.Errorf("fontpack: %s@%s: the tarball does not match the registry's integrity hash %s", rel.pkg, rel.version, rel.integrity)
	}
	return nil
}

// sha512Of returns the SHA-512 of an npm integrity string (Subresource Integrity:
// space-separated "algo-base64" hashes).
func sha512Of(integrity string) ([]byte, error) {
	for _, f := range strings.Fields(integrity) {
		if b, ok := strings.CutPrefix(f, "sha512-"); ok {
			if i := strings.IndexByte(b, '?'); i >= 0 {
				b = b[:i]
			}
			sum, err := base64.StdEncoding.DecodeString(b)
			if err != nil || len(sum) != sha512.Size {
				return nil, fmt.Errorf("integrity %q is not a SHA-512", f)
			}
			return sum, nil
		}
	}
	return nil, fmt.Errorf("the registry gave no sha512 integrity hash (%q)", integrity)
}

func sumEqual(h hash.Hash, want []byte) bool { return string(h.Sum(nil)) == string(want) }
