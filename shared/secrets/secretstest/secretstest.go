// Package secretstest is the conformance suite of the secrets.Store port: the same tests run
// against every adapter (memory and localfile always, Secrets Manager on moto under
// `make test`), so the local hosts behave as the cloud does.
package secretstest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/evalobs/evalapi/shared/secrets"
)

// Run runs the whole suite against the store that open returns. open may return the same
// store to every call: each test uses names of its own and deletes them when done.
func Run(t *testing.T, open func(t *testing.T) secrets.Store) {
	t.Helper()
	for _, tc := range []struct {
		name string
		test func(*testing.T, secrets.Store)
	}{
		{"RoundTrip", testRoundTrip},
		{"NewVersionReplaces", testNewVersion},
		{"GetUnknown", testGetUnknown},
		{"DeleteIdempotent", testDelete},
		{"InvalidName", testInvalidName},
		{"InvalidValue", testInvalidValue},
		{"ValueNeverInErrors", testNoLeak},
		{"CallerOwnsSlices", testCopies},
		{"Concurrent", testConcurrent},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.test(t, open(t)) })
	}
}

// Name returns a valid secret name unique to this run, so that runs sharing one emulator
// never meet. The random part is not six characters after a hyphen, the shape Secrets
// Manager reserves for ARN suffixes.
func Name(t testing.TB, base string) string {
	t.Helper()
	return base + "." + rand.Text()[:12]
}

// Canary returns a fresh, recognisable secret value to plant where a leak would show.
func Canary(t testing.TB) []byte {
	t.Helper()
	return []byte("CANARY-" + rand.Text())
}

// NoLeak fails the test if text holds canary raw, hex-, base64- or base64url-encoded, or
// its random part alone.
func NoLeak(t testing.TB, where, text string, canary []byte) {
	t.Helper()
	forms := map[string]string{
		"raw":       string(canary),
		"random":    strings.TrimPrefix(string(canary), "CANARY-"),
		"hex":       hex.EncodeToString(canary),
		"base64":    base64.StdEncoding.EncodeToString(canary),
		"base64url": base64.RawURLEncoding.EncodeToString(canary),
	}
	for form, s := range forms {
		if strings.Contains(text, s) {
			t.Errorf("%s holds the secret (%s form): %q", where, form, text)
		}
	}
}

// put puts value under name, fails the test on error and deletes the secret at cleanup.
func put(t *testing.T, s secrets.Store, name string, value []byte) string {
	t.Helper()
	ref, err := s.Put(t.Context(), name, value, map[string]string{"purpose": "conformance-test"})
	if err != nil {
		t.Fatalf("Put(%q): %v", name, err)
	}
	if ref == "" {
		t.Fatalf("Put(%q) returned an empty ref", name)
	}
	t.Cleanup(func() { _ = s.Delete(context.Background(), ref) })
	return ref
}

func mustGet(t *testing.T, s secrets.Store, ref string, want []byte) {
	t.Helper()
	got, err := s.Get(t.Context(), ref)
	if err != nil {
		t.Fatalf("Get(%q): %v", ref, err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("Get(%q) = %d bytes, want %d bytes (content differs)", ref, len(got), len(want))
	}
}

func testRoundTrip(t *testing.T, s secrets.Store) {
	for _, tc := range []struct {
		name  string
		value []byte
	}{
		{"text", []byte("sk-live-0123456789")},
		{"json", []byte(`{"api_key":"k","region":"eu"}`)},
		{"one byte", []byte{'x'}},
		{"binary not UTF-8", []byte{0x00, 0xff, 0xfe, '\n', 0xc3, 0x28, 0x00}},
		{"UTF-8 multibyte", []byte("clé-秘密-🔑")},
		{"largest", bytes.Repeat([]byte("0123456789abcdef"), secrets.MaxValueLen/16)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ref := put(t, s, Name(t, "roundtrip"), tc.value)
			mustGet(t, s, ref, tc.value)
		})
	}
}

func testNewVersion(t *testing.T, s secrets.Store) {
	name := Name(t, "versions")
	ref1 := put(t, s, name, []byte("version-one"))
	ref2 := put(t, s, name, []byte("version-two"))
	if ref1 != ref2 {
		t.Fatalf("second Put of %q returned ref %q, first returned %q", name, ref2, ref1)
	}
	mustGet(t, s, ref1, []byte("version-two"))
	ref3 := put(t, s, name, []byte("version-three"))
	if ref3 != ref1 {
		t.Fatalf("third Put of %q returned ref %q, first returned %q", name, ref3, ref1)
	}
	mustGet(t, s, ref1, []byte("version-three"))
}

func testGetUnknown(t *testing.T, s secrets.Store) {
	for _, ref := range []string{Name(t, "never-put"), ""} {
		got, err := s.Get(t.Context(), ref)
		if !errors.Is(err, secrets.ErrNotFound) {
			t.Errorf("Get(%q) = %d bytes, %v; want ErrNotFound", ref, len(got), err)
		}
	}
}

func testDelete(t *testing.T, s secrets.Store) {
	ctx := t.Context()
	if err := s.Delete(ctx, Name(t, "never-put")); err != nil {
		t.Errorf("Delete of an unknown ref: %v", err)
	}
	name := Name(t, "deleted")
	ref := put(t, s, name, []byte("doomed"))
	for i := range 2 {
		if err := s.Delete(ctx, ref); err != nil {
			t.Fatalf("Delete #%d: %v", i+1, err)
		}
		if _, err := s.Get(ctx, ref); !errors.Is(err, secrets.ErrNotFound) {
			t.Fatalf("Get after Delete #%d: %v; want ErrNotFound", i+1, err)
		}
	}
	// The name is free again.
	ref = put(t, s, name, []byte("reborn"))
	mustGet(t, s, ref, []byte("reborn"))
}

func testInvalidName(t *testing.T, s secrets.Store) {
	for _, name := range []string{
		"",
		"has space",
		"semi;colon",
		"star*",
		"back\\slash",
		"new\nline",
		"nul\x00",
		"ünïcode",
		"colon:arn",
		strings.Repeat("a", secrets.MaxNameLen+1),
	} {
		if ref, err := s.Put(t.Context(), name, []byte("v"), nil); !errors.Is(err, secrets.ErrInvalidName) {
			t.Errorf("Put(%q) = %q, %v; want ErrInvalidName", name, ref, err)
			if err == nil {
				_ = s.Delete(context.Background(), ref)
			}
		}
	}
	// Every allowed character.
	ref := put(t, s, Name(t, "Az09/_+=.@-"), []byte("v"))
	mustGet(t, s, ref, []byte("v"))
}

func testInvalidValue(t *testing.T, s secrets.Store) {
	for _, tc := range []struct {
		name  string
		value []byte
	}{
		{"nil", nil},
		{"empty", []byte{}},
		{"too long", make([]byte, secrets.MaxValueLen+1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			name := Name(t, "badvalue")
			if ref, err := s.Put(t.Context(), name, tc.value, nil); !errors.Is(err, secrets.ErrInvalidValue) {
				t.Errorf("Put(%q, %d bytes) = %q, %v; want ErrInvalidValue", name, len(tc.value), ref, err)
				if err == nil {
					_ = s.Delete(context.Background(), ref)
				}
			}
		})
	}
}

func testNoLeak(t *testing.T, s secrets.Store) {
	ctx := t.Context()
	canary := Canary(t)
	ref := put(t, s, Name(t, "canary"), canary)
	mustGet(t, s, ref, canary)

	var errs []error
	_, err := s.Put(ctx, "bad name", canary, nil)
	errs = append(errs, err)
	_, err = s.Put(ctx, Name(t, "huge"), bytes.Repeat(canary, secrets.MaxValueLen/len(canary)+1), nil)
	errs = append(errs, err)
	_, err = s.Get(ctx, Name(t, "never-put"))
	errs = append(errs, err)
	for i, err := range errs {
		if err == nil {
			t.Fatalf("error path %d did not fail", i)
		}
		NoLeak(t, fmt.Sprintf("error %d", i), err.Error(), canary)
	}
	// A store printed by mistake (a %+v of a struct holding it) must not show values either.
	NoLeak(t, "store printed with fmt", fmt.Sprintf("%v %+v %#v %s", s, s, s, s), canary)
}

func testCopies(t *testing.T, s secrets.Store) {
	in := []byte("original")
	ref := put(t, s, Name(t, "copies"), in)
	copy(in, "XXXXXXXX")
	got, err := s.Get(t.Context(), ref)
	if err != nil {
		t.Fatal(err)
	}
	copy(got, "YYYYYYYY") // e.g. a caller zeroing a key after use
	mustGet(t, s, ref, []byte("original"))
}

func testConcurrent(t *testing.T, s secrets.Store) {
	const workers = 8
	shared := Name(t, "shared")
	put(t, s, shared, []byte("v-initial"))
	var wg sync.WaitGroup
	for i := range workers {
		wg.Go(func() {
			own := []byte(fmt.Sprintf("own-%d", i))
			ref, err := s.Put(t.Context(), Name(t, "own"), own, nil)
			if err != nil {
				t.Errorf("worker %d: Put: %v", i, err)
				return
			}
			defer func() { _ = s.Delete(context.Background(), ref) }()
			if got, err := s.Get(t.Context(), ref); err != nil || !bytes.Equal(got, own) {
				t.Errorf("worker %d: Get of its own secret = %q, %v", i, got, err)
			}
			sref, err := s.Put(t.Context(), shared, []byte(fmt.Sprintf("v-%d", i)), nil)
			if err != nil {
				t.Errorf("worker %d: Put shared: %v", i, err)
				return
			}
			got, err := s.Get(t.Context(), sref)
			if err != nil || !bytes.HasPrefix(got, []byte("v-")) {
				t.Errorf("worker %d: Get shared = %q, %v", i, got, err)
			}
		})
	}
	wg.Wait()
}
