package main

import (
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestServeCORSOrigins: serve refuses a --cors-origins value that is not an origin before
// it touches the data dir, and answers the preflights of the origins given (repeated and
// comma-separated flags, in the form browsers send) and of no other.
func TestServeCORSOrigins(t *testing.T) {
	dir := t.TempDir()
	for _, bad := range []string{"http://127.0.0.1:5173/", "localhost:5173", "*,http://127.0.0.1:5173"} {
		out, err := exec.Command(binPath, "serve", "--addr", "127.0.0.1:0", "--data-dir", dir, "--cors-origins", bad).CombinedOutput()
		if err == nil || !strings.Contains(string(out), "--cors-origins") || !strings.Contains(string(out), "scheme://host[:port]") && !strings.Contains(string(out), "cannot be listed with others") {
			t.Fatalf("--cors-origins %s: err=%v\n%s", bad, err, out)
		}
		if names, _ := os.ReadDir(dir); len(names) != 0 {
			t.Fatalf("--cors-origins %s: the data dir was touched: %v", bad, names)
		}
	}
	srv := startServer(t, dir, "--cors-origins", "HTTP://127.0.0.1:5173,https://app.example:443", "--cors-origins", "tauri://localhost")
	for origin, want := range map[string]int{"http://127.0.0.1:5173": 204, "https://app.example": 204, "tauri://localhost": 204, "http://127.0.0.1:5174": 403} {
		req, _ := http.NewRequest(http.MethodOptions, srv.base+"/v1/projects", nil)
		req.Header.Set("Origin", origin)
		req.Header.Set("Access-Control-Request-Method", "POST")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if allow := res.Header.Get("Access-Control-Allow-Origin"); res.StatusCode != want || (want == 204) != (allow == origin) {
			t.Errorf("preflight from %s: %d, Access-Control-Allow-Origin %q", origin, res.StatusCode, allow)
		}
	}
}
