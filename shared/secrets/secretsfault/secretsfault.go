// Package secretsfault is test support: a secrets.Store that passes every call to another
// one and fails the calls a test chooses (the Nth call, or calls of one kind) with a
// timeout or a plain failure, before or after the call reaches the store. It counts and
// logs the calls and the refs written, so that a test can fail each call of a healthy
// request in turn and read back what the request wrote (secrets.Memory has no listing).
package secretsfault

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/evalobs/evalapi/shared/secrets"
)

// Op names a method of secrets.Store.
type Op string

// The methods of secrets.Store.
const (
	OpPut    Op = "Put"
	OpGet    Op = "Get"
	OpDelete Op = "Delete"
)

// ErrInjected is the plain failure, one the service cannot classify.
var ErrInjected = errors.New("secretsfault: injected failure")

// Throttled is Secrets Manager's ThrottlingException as the service sees it: an error it
// cannot tell from any other failure unless the adapter maps it.
func Throttled() error {
	return fmt.Errorf("secretsfault: injected: ThrottlingException: %w", ErrInjected)
}

// Timeout is a timeout of the dependency (wrapping context.DeadlineExceeded).
func Timeout() error { return fmt.Errorf("secretsfault: injected: %w", context.DeadlineExceeded) }

// Fault chooses calls to fail.
type Fault struct {
	At      int   // 1-based position of the call among all calls of the Store; 0 matches any
	Op      Op    // "" matches every method
	Err     error // what the call returns
	Applied bool  // the call reaches the store first, then Err is returned (the answer was lost)
	Sticky  bool  // keep failing every matching call; otherwise the fault fires once
}

// Call is one call the Store received.
type Call struct {
	N      int
	Op     Op
	Ref    string // the name given to Put (the ref Memory returns), or the ref of Get and Delete
	Err    error
	Failed bool // the error was injected
}

// Store wraps a secrets.Store. It is safe for concurrent use.
type Store struct {
	inner secrets.Store

	mu     sync.Mutex
	faults []Fault
	fired  []bool
	calls  []Call
	refs   []string // refs Put returned, in order, without repeats
}

var _ secrets.Store = (*Store)(nil)

// New wraps inner; faults apply to its calls from the first.
func New(inner secrets.Store, faults ...Fault) *Store {
	return &Store{inner: inner, faults: faults, fired: make([]bool, len(faults))}
}

// Inner is the wrapped store.
func (s *Store) Inner() secrets.Store { return s.inner }

// Calls returns a copy of the log of calls.
func (s *Store) Calls() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Call(nil), s.calls...)
}

// Count is the number of calls so far.
func (s *Store) Count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.calls)
}

// Written lists the refs of the secrets Put wrote or Delete removed (calls that reached
// the store), in order, without repeats.
func (s *Store) Written() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.refs...)
}

func (s *Store) begin(op Op, ref string) (int, *Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := len(s.calls) + 1
	s.calls = append(s.calls, Call{N: n, Op: op, Ref: ref})
	for i := range s.faults {
		f := &s.faults[i]
		if (f.At != 0 && f.At != n) || (f.Op != "" && f.Op != op) || (s.fired[i] && !f.Sticky) {
			continue
		}
		s.fired[i] = true
		return n, f
	}
	return n, nil
}

func (s *Store) end(n int, written string, err error, injected bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls[n-1].Err, s.calls[n-1].Failed = err, injected
	if written != "" {
		for _, r := range s.refs {
			if r == written {
				return
			}
		}
		s.refs = append(s.refs, written)
	}
}

// do runs one call through the faults; fn reaches the store and returns the ref it wrote
// ("" for a read).
func (s *Store) do(op Op, ref string, fn func() (string, error)) error {
	n, f := s.begin(op, ref)
	if f == nil {
		w, err := fn()
		s.end(n, w, err, false)
		return err
	}
	w := ""
	if f.Applied {
		w, _ = fn() // the outcome is lost
	}
	s.end(n, w, f.Err, true)
	return f.Err
}

func (s *Store) Put(ctx context.Context, name string, value []byte, tags map[string]string) (string, error) {
	var ref string
	err := s.do(OpPut, name, func() (string, error) {
		var err error
		ref, err = s.inner.Put(ctx, name, value, tags)
		return ref, err
	})
	if err != nil {
		return "", err
	}
	return ref, nil
}

func (s *Store) Get(ctx context.Context, ref string) ([]byte, error) {
	var v []byte
	err := s.do(OpGet, ref, func() (string, error) {
		var err error
		v, err = s.inner.Get(ctx, ref)
		return "", err
	})
	return v, err
}

func (s *Store) Delete(ctx context.Context, ref string) error {
	return s.do(OpDelete, ref, func() (string, error) {
		if err := s.inner.Delete(ctx, ref); err != nil {
			return "", err
		}
		return ref, nil
	})
}
