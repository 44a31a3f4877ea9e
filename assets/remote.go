package assets

import (
	"context"
	"errors"
	"sort"
	"sync"

	"github.com/cutroom/cutroom/editor"
)

// Unresolved is an editor asset a render could not read: not an upload (nor a file of the
// render's asset directory) and not fetchable under the server's policy.
type Unresolved struct {
	// AssetID is the asset's key in the state's assets.
	AssetID string `json:"assetId"`
	// RemoteURL is the asset's remoteUrl, when it has one.
	RemoteURL string `json:"remoteUrl,omitempty"`
	// Reason says why it cannot be read.
	Reason string `json:"reason"`
}

// fileItemTypes are the item types whose asset's file a render reads.
var fileItemTypes = map[editor.ItemType]bool{editor.ItemImage: true, editor.ItemGif: true, editor.ItemVideo: true,
	editor.ItemAudio: true}

// RenderedAssets returns the keys of the editor assets whose files a render of st reads,
// sorted: the assets of image, gif, video and audio items listed in a track, and the
// background's image asset. (A background's imageUrl without an asset is not among them:
// it may name a preset the compositor draws; a remote one is fetched when the render asks
// for it.)
func RenderedAssets(st *editor.State) []string {
	seen := map[string]bool{}
	for i := range st.Tracks {
		for _, it := range st.ItemsInTrack(i) {
			if fileItemTypes[it.Type] && it.AssetID != "" && st.Assets[it.AssetID] != nil {
				seen[it.AssetID] = true
			}
		}
	}
	if bg := st.GlobalBackground; bg.Type == editor.BackgroundImage && bg.ImageAssetID != "" && st.Assets[bg.ImageAssetID] != nil {
		seen[bg.ImageAssetID] = true
	}
	keys := make([]string, 0, len(seen))
	for k := range seen {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Unresolvable lists the rendered assets of st (RenderedAssets) that local does not
// resolve and r may not fetch (a nil r fetches nothing), in key order. It does no network
// I/O: the addresses of allowed hosts are checked when a render fetches.
func Unresolvable(st *editor.State, local Resolver, r *Remote) []Unresolved {
	var out []Unresolved
	for _, k := range RenderedAssets(st) {
		a := st.Assets[k]
		if local != nil {
			if _, err := local(a); err == nil {
				continue
			}
		}
		u := Unresolved{AssetID: k, RemoteURL: a.RemoteURL}
		switch {
		case !IsRemoteURL(a.RemoteURL):
			u.Reason = "not an uploaded asset of this workspace, and it has no http(s) remoteUrl to fetch"
		default:
			err := r.Allowed(a.RemoteURL)
			if err == nil {
				continue
			}
			u.Reason = "not an uploaded asset of this workspace, and its remoteUrl is not fetched: " + err.Error()
		}
		out = append(out, u)
	}
	return out
}

// Prefetch fetches, before a render starts, every rendered asset of st that local does not
// resolve, and returns the render's resolver: local first, then the fetched files. The
// first asset that cannot be fetched fails it with a *FetchError naming the asset, its URL
// and the reason. Assets the render asks for that are not among the rendered ones (a
// background's remote imageUrl) are fetched when asked, under ctx.
func Prefetch(ctx context.Context, st *editor.State, local Resolver, r *Remote) (Resolver, error) {
	fetched := map[string]string{} // by remoteUrl
	for _, k := range RenderedAssets(st) {
		a := st.Assets[k]
		if local != nil {
			if _, err := local(a); err == nil {
				continue
			}
		}
		if !IsRemoteURL(a.RemoteURL) {
			continue // the render reports it as it always has
		}
		p, err := r.Fetch(ctx, a.RemoteURL)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, &FetchError{AssetID: k, URL: a.RemoteURL, Err: err}
		}
		fetched[a.RemoteURL] = p
	}
	var mu sync.Mutex
	return func(a *editor.Asset) (string, error) {
		if p, ok := fetched[a.RemoteURL]; ok && a.RemoteURL != "" {
			return p, nil
		}
		var lerr error
		if local != nil {
			p, err := local(a)
			if err == nil {
				return p, nil
			}
			lerr = err
		} else {
			lerr = CodeNotFound.New("no media source for asset %q", a.ID)
		}
		if r == nil || !IsRemoteURL(a.RemoteURL) {
			return "", lerr
		}
		mu.Lock()
		defer mu.Unlock()
		p, err := r.Fetch(ctx, a.RemoteURL)
		if err != nil {
			return "", errors.Join(lerr, &FetchError{AssetID: a.ID, URL: a.RemoteURL, Err: err})
		}
		return p, nil
	}, nil
}
