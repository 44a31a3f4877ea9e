package server

import (
	"encoding/json"
	"math/big"
	"strconv"
	"strings"
	"testing"
)

// FuzzCanonicalInt checks canonicalInt against math/big on every JSON number literal.
func FuzzCanonicalInt(f *testing.F) {
	for _, s := range []string{"30", "30.0", "3e1", "30.000", "30.5", "-0.0", "6400e-1", "1e400", "1e20", "-9223372036854775808",
		"9223372036854775807.000", "0.5e1", "1500e-3", "1E+2", "1e-99999999999", "12345678901234567890123e-3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, lit string) {
		var num json.Number
		if len(lit) > 200 || json.Unmarshal([]byte(lit), &num) != nil || strings.TrimSpace(lit) != lit || num.String() != lit {
			return // not a bare JSON number literal
		}
		n, integral, ok := canonicalInt(lit)
		if !ok {
			t.Fatalf("canonicalInt(%q) rejects a JSON number", lit)
		}
		if _, e, has := strings.Cut(strings.ToLower(lit), "e"); has {
			if x, err := strconv.Atoi(e); err != nil || x > 1000 || x < -1000 {
				return // big.Rat would expand it; canonicalInt does not
			}
		}
		r, okr := new(big.Rat).SetString(lit)
		if !okr {
			t.Fatalf("big.Rat cannot read %q", lit)
		}
		if integral != r.IsInt() {
			t.Fatalf("canonicalInt(%q) integral = %v, big says %v", lit, integral, r.IsInt())
		}
		if integral && n != r.Num().String() {
			t.Fatalf("canonicalInt(%q) = %q, want %s", lit, n, r.Num().String())
		}
	})
}
