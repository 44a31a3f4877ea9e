package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/spf13/cobra"
)

// newHealthcheckCmd is `cutroom healthcheck`: a probe of a running server's /readyz (or
// --live: /healthz) for container health checks, where no curl may be installed. It exits
// 0 on a 200 answer and 1 otherwise (no answer within --timeout included), printing the
// answer's body (words, never internals).
// --addr is serve's flag, so the CUTROOM_ADDR that configures the server points the probe
// at it too; an unspecified host (0.0.0.0, ::, empty) is probed on loopback, and
// unix:/path/to/socket through that socket.
func newHealthcheckCmd() *cobra.Command {
	var addr string
	var live bool
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "healthcheck",
		Short: "Probe a running server's /readyz (exit 0 when ready); for container health checks",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			path := "/readyz"
			if live {
				path = "/healthz"
			}
			base, tr, err := probeBase(addr)
			if err != nil {
				return err
			}
			url := base + path
			ctx, cancel := context.WithTimeout(cmd.Context(), timeout)
			defer cancel()
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
			if err != nil {
				return err
			}
			resp, err := (&http.Client{Transport: tr}).Do(req)
			if err != nil {
				return fmt.Errorf("%s: %w", url, err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
			fmt.Fprintf(cmd.OutOrStdout(), "%s: %d %s\n", url, resp.StatusCode, strings.TrimSpace(string(body)))
			if resp.StatusCode != http.StatusOK {
				return fmt.Errorf("not ready: %s answered %d", url, resp.StatusCode)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&addr, "addr", "127.0.0.1:8787", "the server's --addr: HOST:PORT (0.0.0.0 and :: are probed on loopback) or unix:/path/to/socket")
	cmd.Flags().BoolVar(&live, "live", false, "probe /healthz (the process serves) instead of /readyz")
	cmd.Flags().DurationVar(&timeout, "timeout", 5*time.Second, "longest wait for the answer")
	return cmd
}

// probeBase is the base URL and transport that reach the server listening on addr (serve's
// --addr: HOST:PORT or unix:PATH).
func probeBase(addr string) (string, *http.Transport, error) {
	if socketPath(addr) != "" {
		return serverClient(addr)
	}
	url, err := probeURL(addr, "")
	if err != nil {
		return "", nil, err
	}
	return serverClient(url)
}

// probeURL is the http:// URL of path on the server listening on addr.
func probeURL(addr, path string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("--addr %q: %w", addr, err)
	}
	switch host {
	case "", "0.0.0.0":
		host = "127.0.0.1"
	case "::":
		host = "::1"
	}
	return "http://" + net.JoinHostPort(host, port) + path, nil
}
