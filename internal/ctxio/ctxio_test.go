package ctxio_test

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/cutroom/cutroom/internal/ctxio"
)

func TestReaderStopsWhenTheContextEnds(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	r := ctxio.Reader(ctx, strings.NewReader("abcdef"))
	buf := make([]byte, 3)
	if n, err := r.Read(buf); n != 3 || err != nil || string(buf) != "abc" {
		t.Fatalf("before cancel: %d %v %q", n, err, buf)
	}
	cancel()
	if n, err := r.Read(buf); n != 0 || !errors.Is(err, context.Canceled) {
		t.Fatalf("after cancel: %d %v, want 0 and context.Canceled", n, err)
	}
	if _, err := io.ReadAll(ctxio.Reader(context.Background(), strings.NewReader("x"))); err != nil {
		t.Fatal(err)
	}
}
