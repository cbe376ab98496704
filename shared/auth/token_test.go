package auth

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/evalobs/evalapi/shared/secrets"
)

func testKeys(t *testing.T) *keys {
	t.Helper()
	k, err := deriveKeys([]byte(strings.Repeat("s", MinSecretLen)))
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestTokens(t *testing.T) {
	k := testKeys(t)
	t0 := time.Unix(1_800_000_000, 0)
	at := func(d time.Duration) func() time.Time { return func() time.Time { return t0.Add(d) } }
	sc := sessionClaims{Sid: "s1", Src: "password"}
	access, ajti, err := accessKind.issue(k, "u1", "o1", sc, t0, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	refresh, rjti, err := refreshKind.issue(k, "u1", "o1", sc, t0, 24*time.Hour)
	if err != nil || ajti == rjti {
		t.Fatalf("issue: %v (jtis %s %s)", err, ajti, rjti)
	}
	// A token of the right key with the other type's typ claim.
	wrongTyp, err := jwt.NewWithClaims(jwt.SigningMethodHS256, claims{
		RegisteredClaims: jwt.RegisteredClaims{Issuer: issuer, Subject: "u1", Audience: jwt.ClaimStrings{audienceAccess},
			ExpiresAt: jwt.NewNumericDate(t0.Add(time.Hour)), IssuedAt: jwt.NewNumericDate(t0), ID: "j"},
		Typ: typRefresh, Org: "o1", sessionClaims: sc,
	}).SignedString(k.access)
	if err != nil {
		t.Fatal(err)
	}
	// A token of before sessions were recorded: no session claims.
	noSession, err := jwt.NewWithClaims(jwt.SigningMethodHS256, claims{
		RegisteredClaims: jwt.RegisteredClaims{Issuer: issuer, Subject: "u1", Audience: jwt.ClaimStrings{audienceAccess},
			ExpiresAt: jwt.NewNumericDate(t0.Add(time.Hour)), IssuedAt: jwt.NewNumericDate(t0), ID: "j"},
		Typ: typAccess, Org: "o1",
	}).SignedString(k.access)
	if err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name         string
		kind         kind
		token        string
		now          func() time.Time
		allowExpired bool
		ok           bool
	}{
		{"access", accessKind, access, at(time.Minute), false, true},
		{"refresh", refreshKind, refresh, at(time.Minute), false, true},
		{"access as refresh", refreshKind, access, at(time.Minute), false, false},
		{"refresh as access", accessKind, refresh, at(time.Minute), false, false},
		{"refresh as access, expiry waived", accessKind, refresh, at(time.Minute), true, false},
		{"wrong typ claim", accessKind, wrongTyp, at(time.Minute), false, false},
		{"no session claims", accessKind, noSession, at(time.Minute), false, false},
		{"within leeway after exp", accessKind, access, at(time.Hour + 20*time.Second), false, true},
		{"beyond leeway", accessKind, access, at(time.Hour + 40*time.Second), false, false},
		{"expired, expiry waived", accessKind, access, at(48 * time.Hour), true, true},
		{"issued in the future", accessKind, access, at(-time.Minute), false, false},
		{"truncated", accessKind, access[:len(access)-2], at(time.Minute), false, false},
		{"garbage", accessKind, "a.b.c", at(time.Minute), false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := tt.kind.parse(k, tt.token, tt.now, tt.allowExpired)
			if (err == nil) != tt.ok {
				t.Fatalf("parse: %v, want ok %v", err, tt.ok)
			}
			if err != nil && !errors.Is(err, errBadToken) {
				t.Fatalf("error %v does not wrap errBadToken", err)
			}
			if tt.ok && (c.Subject != "u1" || c.Org != "o1" || c.ID == "" || c.sessionClaims != sc) {
				t.Fatalf("claims %+v", c)
			}
		})
	}
}

func TestDerivedKeys(t *testing.T) {
	k := testKeys(t)
	if string(k.access) == string(k.refresh) || string(k.access) == string(k.pepper) || string(k.refresh) == string(k.pepper) {
		t.Fatal("derived keys are not distinct")
	}
	other, _ := deriveKeys([]byte(strings.Repeat("t", MinSecretLen)))
	if string(other.access) == string(k.access) {
		t.Fatal("different secrets derive the same key")
	}
	if _, err := deriveKeys([]byte("short")); err == nil {
		t.Fatal("a short secret was accepted")
	}
}

// failingStore fails Get until told otherwise and counts the calls.
type failingStore struct {
	secrets.Store
	fail bool
	gets int
}

func (f *failingStore) Get(ctx context.Context, ref string) ([]byte, error) {
	f.gets++
	if f.fail {
		return nil, errors.New("unavailable")
	}
	return f.Store.Get(ctx, ref)
}

func TestKeyringReadsOnceAndRetriesFailures(t *testing.T) {
	ctx := t.Context()
	mem := secrets.NewMemory()
	ref, err := EnsureSigningSecret(ctx, mem, "jwt")
	if err != nil {
		t.Fatal(err)
	}
	if again, err := EnsureSigningSecret(ctx, mem, "jwt"); err != nil || again != ref {
		t.Fatalf("second ensure: %q, %v", again, err)
	}
	value, _ := mem.Get(ctx, ref)
	fs := &failingStore{Store: mem, fail: true}
	kr := &keyring{store: fs, ref: ref}
	if _, err := kr.get(ctx); err == nil || strings.Contains(err.Error(), string(value)) {
		t.Fatalf("failed read: %v", err)
	}
	fs.fail = false
	a, err := kr.get(ctx)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := kr.get(ctx)
	if a != b || fs.gets != 2 {
		t.Fatalf("keys read %d times, want 2 (one failure, one success)", fs.gets)
	}
}

// With a pepper secret of its own, the API-key pepper survives a rotation of the signing
// secret (and differs from the pepper derived from the signing secret alone).
func TestKeyringPepperSecret(t *testing.T) {
	ctx := t.Context()
	mem := secrets.NewMemory()
	put := func(name, value string) string {
		ref, err := mem.Put(ctx, name, []byte(value), nil)
		if err != nil {
			t.Fatal(err)
		}
		return ref
	}
	jwtA := put("jwt-a", strings.Repeat("a", 48))
	jwtB := put("jwt-b", strings.Repeat("b", 48))
	pepper := put("pepper", strings.Repeat("p", 48))
	short := put("short", "too-short")

	get := func(kr *keyring) *keys {
		t.Helper()
		k, err := kr.get(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	beforeRotation := get(&keyring{store: mem, ref: jwtA, pepperRef: pepper})
	afterRotation := get(&keyring{store: mem, ref: jwtB, pepperRef: pepper})
	if !bytes.Equal(beforeRotation.pepper, afterRotation.pepper) {
		t.Error("rotating the signing secret changed the pepper of a separate pepper secret")
	}
	if bytes.Equal(beforeRotation.access, afterRotation.access) {
		t.Error("rotating the signing secret kept the access-token key")
	}
	if derived := get(&keyring{store: mem, ref: jwtA}); bytes.Equal(derived.pepper, beforeRotation.pepper) {
		t.Error("the pepper secret is ignored: same pepper as the one derived from the signing secret")
	}
	if _, err := (&keyring{store: mem, ref: jwtA, pepperRef: short}).get(ctx); err == nil || strings.Contains(err.Error(), "too-short") {
		t.Errorf("short pepper secret: %v, want an error that does not quote it", err)
	}
	if _, err := (&keyring{store: mem, ref: jwtA, pepperRef: "missing"}).get(ctx); err == nil {
		t.Error("missing pepper secret accepted")
	}
}
