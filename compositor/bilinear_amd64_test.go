//go:build amd64 && !purego

package compositor

import (
	"reflect"
	"testing"

	"golang.org/x/sys/cpu"
)

// TestBilinearRowUsesAVX2: on a CPU with AVX2 the assembly version is the one in use (and so
// the one the other tests check).
func TestBilinearRowUsesAVX2(t *testing.T) {
	if !cpu.X86.HasAVX2 {
		t.Skip("this CPU has no AVX2: the Go version is in use")
	}
	if reflect.ValueOf(bilinearRow).Pointer() != reflect.ValueOf(bilinearRowAVX2).Pointer() {
		t.Fatal("bilinearRow is not bilinearRowAVX2 on a CPU with AVX2")
	}
}
