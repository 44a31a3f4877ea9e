package lottiebudget_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cutroom/cutroom/lottiebudget"
)

// BenchmarkCheckBytes measures a large document: the layers of every file of package
// lottie's comparison corpus but precomp and image layers, 40 times over (0.5 MB).
func BenchmarkCheckBytes(b *testing.B) {
	paths, _ := filepath.Glob("../lottie/testdata/corpus/*.json")
	var layers []string
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		var d struct{ Layers []json.RawMessage }
		if err := json.Unmarshal(data, &d); err != nil {
			b.Fatal(err)
		}
		for _, l := range d.Layers {
			if !strings.Contains(string(l), `"refId"`) { // precomp and image layers need their assets
				layers = append(layers, string(l))
			}
		}
	}
	all := strings.Repeat(strings.Join(layers, ",")+",", 40)
	doc := []byte(`{"v":"5.7.4","fr":30,"ip":0,"op":60,"w":100,"h":100,"layers":[` + strings.TrimSuffix(all, ",") + `]}`)
	if _, err := lottiebudget.CheckBytes(doc, lottiebudget.Limits{}); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := lottiebudget.CheckBytes(doc, lottiebudget.Limits{}); err != nil {
			b.Fatal(err)
		}
	}
}
