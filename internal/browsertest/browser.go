// Package browsertest starts headless Chromium through chromedp for the browser tests of
// console (the web console) and app (the API from a page of another origin). Test
// support: only _test files import it.
package browsertest

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/cutroom/cutroom/internal/imagetest"
)

// Chromium is the path of the installed Chromium; without one the test skips, except in CI
// (CI=true), where it fails.
func Chromium(t testing.TB) string {
	t.Helper()
	if p := imagetest.Chromium(); p != "" {
		return p
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("chromium is not installed, and CI=true: scripts/install-deps.sh --test installs it")
	}
	t.Skip("chromium is not installed (apt-get install -y chromium, or scripts/install-deps.sh --test): this browser test is skipped")
	return ""
}

// Start starts headless Chromium (no sandbox, no GPU, a profile dir of chromedp's own,
// which it removes) with opts added, and returns its context, which ends after limit or
// with the test.
func Start(t testing.TB, limit time.Duration, opts ...chromedp.ExecAllocatorOption) context.Context {
	t.Helper()
	bin := Chromium(t)
	all := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(bin), chromedp.NoSandbox, chromedp.Flag("disable-gpu", true))
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), append(all, opts...)...)
	ctx, cancel := chromedp.NewContext(alloc)
	ctx, cancelTime := context.WithTimeout(ctx, limit)
	t.Cleanup(func() { cancelTime(); cancel(); cancelAlloc() })
	if err := chromedp.Run(ctx); err != nil {
		t.Fatalf("starting %s: %v", bin, err)
	}
	return ctx
}
