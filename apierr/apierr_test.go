package apierr_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/cutroom/cutroom/apierr"
)

var errTestGone = apierr.Define(apierr.Gone, "APIERR_TEST_GONE")

func TestErrorCarriesItsCode(t *testing.T) {
	err := fmt.Errorf("context: %w", errTestGone.Field("output", "link %d expired", 7))
	e := apierr.As(err)
	if e == nil || e.Code != errTestGone || e.Kind() != apierr.Gone || e.Field != "output" || e.Detail != "link 7 expired" {
		t.Fatalf("%+v", e)
	}
	if !errTestGone.Is(err) || apierr.KindOf(err) != apierr.Gone {
		t.Fatal("Is/KindOf")
	}
	if apierr.KindOf(errors.New("plain")) != apierr.Internal || apierr.As(errors.New("plain")) != nil {
		t.Fatal("a plain error is internal")
	}
	cause := errors.New("disk")
	if w := errTestGone.Wrap(cause, "x"); !errors.Is(w, cause) || w.Error() != "x" {
		t.Fatal("Wrap keeps the cause out of the detail but unwrappable")
	}
}

func TestDefineRules(t *testing.T) {
	if again := apierr.Define(apierr.Gone, "APIERR_TEST_GONE"); again != errTestGone {
		t.Fatal("defining a name again with the same kind gives an equal code")
	}
	for _, bad := range []func(){
		func() { apierr.Define(apierr.Internal, "APIERR_TEST_X") },
		func() { apierr.Define(apierr.Invalid, "apierr_lower") },
		func() { apierr.Define(apierr.Invalid, "") },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Error("Define did not panic")
				}
			}()
			bad()
		}()
	}
}
