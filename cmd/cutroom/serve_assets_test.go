package main

import (
	"encoding/binary"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

var fileURLRE = regexp.MustCompile(`"fileUrl":"([^"]+)"`)

// TestCrashMidUpload kills the server with SIGKILL while an upload is streaming, restarts
// it, and finds no temp file, no asset file and no record of the broken upload, while an
// upload completed before the crash is still served by the link handed out before it.
func TestCrashMidUpload(t *testing.T) {
	dir := t.TempDir()
	const key = "cutroom_sk_test-key-for-upload-crash"
	srv := startServer(t, dir, "--api-key", key)

	req, _ := http.NewRequest("POST", srv.base+"/v1/uploads", strings.NewReader("WEBVTT\n\n00:00.000 --> 00:01.000\nhi\n"))
	req.Header.Set("x-api-key", key)
	req.Header.Set("x-file-name", "done.vtt")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	m := fileURLRE.FindStringSubmatch(string(body))
	if resp.StatusCode != 201 || m == nil {
		t.Fatalf("upload: %d %s", resp.StatusCode, body)
	}
	link := strings.ReplaceAll(m[1], `\u0026`, "&")

	// A WAV upload that never finishes: header, then 4 MB, then the server dies.
	pr, pw := io.Pipe()
	go func() {
		hdr := make([]byte, 44)
		copy(hdr, "RIFF")
		binary.LittleEndian.PutUint32(hdr[4:], 36+20<<20)
		copy(hdr[8:], "WAVEfmt ")
		binary.LittleEndian.PutUint32(hdr[16:], 16)
		binary.LittleEndian.PutUint16(hdr[20:], 1)
		binary.LittleEndian.PutUint16(hdr[22:], 1)
		binary.LittleEndian.PutUint32(hdr[24:], 8000)
		binary.LittleEndian.PutUint32(hdr[28:], 16000)
		binary.LittleEndian.PutUint16(hdr[32:], 2)
		binary.LittleEndian.PutUint16(hdr[34:], 16)
		copy(hdr[36:], "data")
		binary.LittleEndian.PutUint32(hdr[40:], 20<<20)
		if _, err := pw.Write(hdr); err != nil {
			return
		}
		chunk := make([]byte, 64<<10)
		for i := 0; i < 64; i++ {
			if _, err := pw.Write(chunk); err != nil {
				return
			}
		}
		time.Sleep(time.Minute) // hold the upload open until the server is killed
		pw.Close()
	}()
	ureq, _ := http.NewRequest("POST", srv.base+"/v1/uploads", pr)
	ureq.Header.Set("x-api-key", key)
	ureq.Header.Set("x-file-name", "broken.wav")
	go func() {
		if r, err := http.DefaultClient.Do(ureq); err == nil {
			r.Body.Close()
		}
	}()
	tmpDir := filepath.Join(dir, "files", "tmp")
	deadline := time.Now().Add(10 * time.Second)
	for {
		es, _ := os.ReadDir(tmpDir)
		if len(es) == 1 {
			if fi, err := es[0].Info(); err == nil && fi.Size() >= 4<<20 {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the upload never reached 4 MB in %s", tmpDir)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := srv.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = srv.cmd.Wait()
	pw.CloseWithError(io.ErrClosedPipe)

	srv2 := startServer(t, dir, "--api-key", key)
	if es, _ := os.ReadDir(tmpDir); len(es) != 0 {
		t.Fatalf("temp files survived the restart: %v", es)
	}
	var files []string
	_ = filepath.WalkDir(filepath.Join(dir, "files", "assets"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files = append(files, filepath.Base(p))
		}
		return nil
	})
	if len(files) != 1 || files[0] != "done.vtt" {
		t.Fatalf("asset files after the restart: %v", files)
	}
	// The link handed out before the crash still works: the signing secret is stored.
	resp, err = http.Get(srv2.base + strings.TrimPrefix(link, srv.base))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.HasPrefix(string(got), "WEBVTT") {
		t.Fatalf("old link after restart: %d %s", resp.StatusCode, got)
	}
}
