package editor

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cutroom/cutroom/editor/internal/jsontape"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

func BenchmarkDecodeJSON5000Items(b *testing.B) {
	raw := bigState(b, 5000)
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		if t, err := jsontape.Decode(raw); err != nil || t.Tree(t.Root()) == nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkStdlibDecode5000Items(b *testing.B) {
	raw := bigState(b, 5000)
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw)); err != nil {
			b.Fatal(err)
		}
	}
}

// TestHugeNumbersAreCheap guards against literals that make exact arithmetic slow.
func TestHugeNumbersAreCheap(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"compositionWidth": 1e999999, "tracks": [`)
	for i := 0; i < 2000; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"id": "t", "items": [], "hidden": false, "muted": 1e99999` + strconv.Itoa(i%10) + `}`)
	}
	b.WriteString(`]}`)
	start := time.Now()
	r := Validate([]byte(b.String()))
	if r.Valid {
		t.Fatal("valid")
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("took %v", d)
	}
}
