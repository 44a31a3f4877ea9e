package server_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/cutroom/cutroom/internal/imagetest"
	"github.com/cutroom/cutroom/server"
)

// rawPost opens a connection to srv and sends the head of a POST with the given
// Content-Length; the caller writes the body.
func rawPost(t *testing.T, srv *httptest.Server, path, key string, length int, hdr ...string) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	var b strings.Builder
	fmt.Fprintf(&b, "POST %s HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: %s\r\nContent-Length: %d\r\n", path, key, length)
	for i := 0; i+1 < len(hdr); i += 2 {
		fmt.Fprintf(&b, "%s: %s\r\n", hdr[i], hdr[i+1])
	}
	b.WriteString("\r\n")
	if _, err := conn.Write([]byte(b.String())); err != nil {
		t.Fatal(err)
	}
	return conn
}

// readProblem reads one response from conn (within 10 s) and returns its status and code.
func readProblem(t *testing.T, conn net.Conn) (int, string, http.Header) {
	t.Helper()
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no response: %v", err)
	}
	defer resp.Body.Close()
	var p struct{ ErrorCode string }
	b, _ := io.ReadAll(resp.Body)
	_ = json.Unmarshal(b, &p)
	return resp.StatusCode, p.ErrorCode, resp.Header
}

func post(t *testing.T, srv *httptest.Server, path, key string, body io.Reader) (int, string, http.Header) {
	t.Helper()
	req, _ := http.NewRequest("POST", srv.URL+path, body)
	req.Header.Set("x-api-key", key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var p struct{ ErrorCode string }
	b, _ := io.ReadAll(resp.Body)
	_ = json.Unmarshal(b, &p)
	return resp.StatusCode, p.ErrorCode, resp.Header
}

// jsonOf is a validate body of exactly n bytes.
func jsonOf(n int) string {
	head, tail := `{"editorState":{},"pad":"`, `"}`
	return head + strings.Repeat("x", n-len(head)-len(tail)) + tail
}

// TestBodyBudget: JSON bodies being read and decoded share one server-wide budget; a
// request that does not fit is 503 SERVER_BUSY with Retry-After, reserved by Content-Length
// or, without one, by the cap; the budget is released when the request ends.
func TestBodyBudget(t *testing.T) {
	e := newEnv(t, func(c *server.Config) { c.MaxBodyBytes = 64 << 10; c.BodyBudgetBytes = 100 << 10 })
	srv := httptest.NewServer(e.h)
	t.Cleanup(srv.Close) // after the connections' cleanups (LIFO)
	// A holds 60 KB of the budget: its head is sent, its body only begun. A asks for
	// 100-continue, which the server sends once A's handler has reserved and starts reading;
	// on a loaded machine an earlier request's handler may still hold the budget, and A is
	// sent again.
	body := jsonOf(60 << 10)
	var a net.Conn
	for deadline := time.Now().Add(5 * time.Second); a == nil; {
		c := rawPost(t, srv, "/v1/editor/validate", e.keyA, len(body), "Content-Type", "application/json", "Expect", "100-continue")
		_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
		br := bufio.NewReader(c)
		line, err := br.ReadString('\n')
		for l := line; err == nil && strings.HasPrefix(line, "HTTP/1.1 100 ") && l != "\r\n"; {
			l, err = br.ReadString('\n') // the rest of the interim response, up to its blank line
		}
		_ = c.SetReadDeadline(time.Time{})
		switch {
		case err != nil:
			t.Fatalf("A: %v", err)
		case strings.HasPrefix(line, "HTTP/1.1 100 "):
			a = c
		case time.Now().After(deadline):
			t.Fatalf("A never got 100-continue: %q", line)
		default:
			c.Close()
			time.Sleep(20 * time.Millisecond)
		}
	}
	if _, err := a.Write([]byte(body[:100])); err != nil {
		t.Fatal(err)
	}
	// B (another 60 KB) does not fit.
	st, code, h := post(t, srv, "/v1/editor/validate", e.keyA, strings.NewReader(jsonOf(60<<10)))
	if st != 503 || code != "SERVER_BUSY" || h.Get("Retry-After") != "1" || h.Get("Content-Type") != "application/problem+json" {
		t.Fatalf("a second 60 KB body while the first held the 100 KB budget: %d %s %v", st, code, h)
	}
	// A small one fits beside A; one without Content-Length reserves the cap and does not.
	if st, _, _ := post(t, srv, "/v1/editor/validate", e.keyA, strings.NewReader(`{"editorState":{}}`)); st != 200 {
		t.Fatalf("small body beside A: %d", st)
	}
	if st, code, _ := post(t, srv, "/v1/editor/validate", e.keyA, io.MultiReader(strings.NewReader(`{"editorState":{}}`))); st != 503 || code != "SERVER_BUSY" {
		t.Fatalf("chunked body beside A: %d %s", st, code)
	}
	// A body over the cap is refused before it is read, whatever the budget.
	if st, code, _ := post(t, srv, "/v1/editor/validate", e.keyA, strings.NewReader(jsonOf(65<<10))); st != 413 || code != "PAYLOAD_TOO_LARGE" {
		t.Fatalf("over the cap: %d %s", st, code)
	}
	// A ends: the budget is free again.
	if _, err := a.Write([]byte(body[100:])); err != nil {
		t.Fatal(err)
	}
	if st, code, _ := readProblem(t, a); st == 503 {
		t.Fatalf("A: %d %s", st, code)
	}
	if st, code, _ := post(t, srv, "/v1/editor/validate", e.keyA, strings.NewReader(jsonOf(60<<10))); st == 503 {
		t.Fatalf("after A: %d %s", st, code)
	}
}

// drip writes one byte of body every interval until stop is closed or the write fails.
func drip(conn net.Conn, interval time.Duration, stop chan struct{}) {
	go func() {
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				if _, err := conn.Write([]byte("x")); err != nil {
					return
				}
			}
		}
	}()
}

// TestSlowBodyCut: a body dripped at 10 bytes per second over loopback is cut (408
// BODY_TIMEOUT, connection closed) after about the grace period, on JSON routes and uploads,
// while the server keeps answering others; an upload paced above the minimum rate with
// pauses shorter than the grace goes through.
func TestSlowBodyCut(t *testing.T) {
	e := newEnv(t, func(c *server.Config) { c.MinBodyRate = 1000; c.BodyGrace = 500 * time.Millisecond })
	srv := httptest.NewServer(e.h)
	t.Cleanup(srv.Close) // after the connections' cleanups (LIFO)
	for _, route := range []struct {
		path string
		hdr  []string
	}{
		{"/v1/editor/validate", []string{"Content-Type", "application/json"}},
		{"/v1/uploads", []string{"x-file-name", "slow.png"}},
	} {
		start := time.Now()
		conn := rawPost(t, srv, route.path, e.keyA, 1000, route.hdr...)
		stop := make(chan struct{})
		defer close(stop)
		drip(conn, 100*time.Millisecond, stop)
		t.Cleanup(func() { conn.Close() })
		// The server answers others meanwhile.
		req, _ := http.NewRequest("GET", srv.URL+"/v1/editor/capabilities", nil)
		req.Header.Set("x-api-key", e.keyA)
		t0 := time.Now()
		if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != 200 || time.Since(t0) > 2*time.Second {
			t.Fatalf("%s: another request during the drip: %v %v", route.path, err, time.Since(t0))
		} else {
			resp.Body.Close()
		}
		st, code, h := readProblem(t, conn)
		if st != 408 || code != "BODY_TIMEOUT" || h.Get("Content-Type") != "application/problem+json" {
			t.Fatalf("%s: %d %s", route.path, st, code)
		}
		if took := time.Since(start); took > 5*time.Second {
			t.Fatalf("%s: cut after %v", route.path, took)
		}
		_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
		if n, err := conn.Read(make([]byte, 1)); err == nil {
			t.Fatalf("%s: connection still open (%d bytes more)", route.path, n)
		}
	}
	// Paced: 1 KB every 200 ms (5 KB/s) with the grace 500 ms.
	png := imagetest.NoisePNG(t, 32, 32)
	conn := rawPost(t, srv, "/v1/uploads", e.keyA, len(png), "x-file-name", "paced.png")
	for off := 0; off < len(png); off += 1024 {
		time.Sleep(200 * time.Millisecond)
		if _, err := conn.Write(png[off:min(off+1024, len(png))]); err != nil {
			t.Fatal(err)
		}
	}
	if st, code, _ := readProblem(t, conn); st != 201 {
		t.Fatalf("paced upload of %d bytes: %d %s", len(png), st, code)
	}
}
