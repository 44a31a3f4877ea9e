package text

import (
	"fmt"
	"io/fs"
	"slices"
	"sort"
	"testing"

	"github.com/go-text/typesetting/font"
	ot "github.com/go-text/typesetting/font/opentype"
)

// describeEmbedded reads the metadata of an embedded font file without copying it.
func describeEmbedded(name string) ([]*faceEntry, error) {
	f, err := embeddedFonts.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	res, ok := f.(font.Resource)
	if !ok {
		return nil, fmt.Errorf("embedded file is not seekable")
	}
	lds, err := ot.NewLoaders(res)
	if err != nil {
		return nil, err
	}
	var out []*faceEntry
	for i, ld := range lds {
		desc, _ := font.Describe(ld, nil)
		if desc.Family == "" {
			continue
		}
		e := newEntry(desc, sourceEmbedded, "embedded:"+name, i)
		e.embedded = name
		out = append(out, e)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no usable face")
	}
	return out, nil
}

func TestEmbeddedFacesDescribeTheFiles(t *testing.T) {
	names, err := fs.Glob(embeddedFonts, "fonts/*")
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(names)
	var want, got []string
	for _, name := range names {
		entries, err := describeEmbedded(name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, e := range entries {
			want = append(want, fmt.Sprintf("%s %q %d %v %g %d", name, e.family, e.weight, e.italic, e.stretch, e.index))
		}
	}
	for _, f := range embeddedFaces {
		got = append(got, fmt.Sprintf("%s %q %d %v %g %d", f.file, f.face.Family, f.face.Weight, f.face.Italic, f.face.Stretch, f.face.Index))
	}
	if !slices.Equal(got, want) {
		t.Fatalf("embeddedFaces:\n%v\nthe files describe:\n%v", got, want)
	}
}
