package secretsfault_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/evalobs/evalapi/shared/secrets"
	"github.com/evalobs/evalapi/shared/secrets/secretsfault"
)

// run makes four calls: put a, get a, put b, delete a.
func run(ctx context.Context, s secrets.Store) []error {
	_, e1 := s.Put(ctx, "a", []byte("va"), nil)
	_, e2 := s.Get(ctx, "a")
	_, e3 := s.Put(ctx, "b", []byte("vb"), nil)
	e4 := s.Delete(ctx, "a")
	return []error{e1, e2, e3, e4}
}

func TestFaults(t *testing.T) {
	for _, c := range []struct {
		name    string
		fault   secretsfault.Fault
		failed  []int
		is      error
		present []string // which of a and b exist afterwards
		written []string
	}{
		{"none", secretsfault.Fault{}, nil, nil, []string{"b"}, []string{"a", "b"}},
		{"get times out", secretsfault.Fault{Op: secretsfault.OpGet, Err: secretsfault.Timeout()}, []int{2}, context.DeadlineExceeded, []string{"b"}, []string{"a", "b"}},
		{"third call throttled", secretsfault.Fault{At: 3, Err: secretsfault.Throttled()}, []int{3}, secretsfault.ErrInjected, nil, []string{"a"}},
		{"every put fails", secretsfault.Fault{Op: secretsfault.OpPut, Err: secretsfault.ErrInjected, Sticky: true}, []int{1, 3}, secretsfault.ErrInjected, nil, []string{"a"}},
		{"put applied, answer lost", secretsfault.Fault{At: 3, Err: secretsfault.Timeout(), Applied: true}, []int{3}, context.DeadlineExceeded, []string{"b"}, []string{"a", "b"}},
		{"delete refused", secretsfault.Fault{Op: secretsfault.OpDelete, Err: secretsfault.ErrInjected}, []int{4}, secretsfault.ErrInjected, []string{"a", "b"}, []string{"a", "b"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			mem := secrets.NewMemory()
			var faults []secretsfault.Fault
			if c.fault.Err != nil {
				faults = append(faults, c.fault)
			}
			s := secretsfault.New(mem, faults...)
			for i, err := range run(t.Context(), s) {
				want := slices.Contains(c.failed, i+1)
				if want != (err != nil && errors.Is(err, c.is)) {
					t.Errorf("call %d: error %v, want injected failure %v wrapping %v", i+1, err, want, c.is)
				}
			}
			var present []string
			for _, ref := range []string{"a", "b"} {
				if _, err := mem.Get(t.Context(), ref); err == nil {
					present = append(present, ref)
				}
			}
			if !slices.Equal(present, c.present) {
				t.Errorf("secrets %v, want %v", present, c.present)
			}
			if got := s.Written(); !slices.Equal(got, c.written) {
				t.Errorf("Written() = %v, want %v", got, c.written)
			}
			calls := s.Calls()
			if len(calls) != 4 || s.Count() != 4 {
				t.Fatalf("%d calls logged, want 4", len(calls))
			}
			for i, call := range calls {
				if call.N != i+1 || call.Failed != slices.Contains(c.failed, i+1) {
					t.Errorf("call %d logged as %+v", i+1, call)
				}
			}
			if s.Inner() != secrets.Store(mem) {
				t.Error("Inner() is not the wrapped store")
			}
		})
	}
}
