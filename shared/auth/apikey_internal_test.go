package auth

import (
	"strings"
	"testing"
)

func TestAPIKeyFormat(t *testing.T) {
	k, err := newAPIKey()
	if err != nil {
		t.Fatal(err)
	}
	s := k.String()
	if got, ok := parseAPIKey(s); !ok || got != k {
		t.Fatalf("parse(%q) = %+v, %v", s, got, ok)
	}
	if len(k.secret) != apiKeySecretLen || !strings.HasPrefix(s, "evo_"+k.id+"_") {
		t.Fatalf("key %q", s)
	}
	if strings.Contains(k.truncated(), k.secret[:4]) {
		t.Fatal("the truncated form shows part of the secret")
	}
	tests := []struct{ name, key string }{
		{"empty", ""},
		{"other prefix", "ghp_" + s[4:]},
		{"no secret", "evo_" + k.id},
		{"short secret", s[:len(s)-1]},
		{"long secret", s + "a"},
		{"upper-case secret", "evo_" + k.id + "_" + strings.ToUpper(k.secret)},
		{"secret not base32", "evo_" + k.id + "_" + strings.Repeat("1", apiKeySecretLen)},
		{"id not a uuid", "evo_" + strings.Repeat("a", 36) + "_" + k.secret},
		{"upper-case id", "evo_" + strings.ToUpper(k.id) + "_" + k.secret},
	}
	for _, tt := range tests {
		if _, ok := parseAPIKey(tt.key); ok {
			t.Errorf("%s: %q parsed", tt.name, tt.key)
		}
	}
}

func TestAPIKeyDigest(t *testing.T) {
	a, _ := newAPIKey()
	b, _ := newAPIKey()
	pepper := []byte(strings.Repeat("p", 32))
	moved := apiKey{id: b.id, secret: a.secret}
	tests := []struct {
		name string
		x, y apiKey
		xp   []byte
		same bool
	}{
		{"same key", a, a, pepper, true},
		{"other key", a, b, pepper, false},
		{"secret moved to another id", a, moved, pepper, false},
		{"other pepper", a, a, []byte(strings.Repeat("q", 32)), false},
	}
	for _, tt := range tests {
		if got := tt.x.digest(tt.xp) == tt.y.digest(pepper); got != tt.same {
			t.Errorf("%s: equal digests = %v", tt.name, got)
		}
	}
	d := a.digest(pepper)
	if back, ok := decodeDigest(encodeDigest(d)); !ok || back != d {
		t.Fatal("digest does not round-trip")
	}
	if _, ok := decodeDigest("abc"); ok {
		t.Fatal("short digest decoded")
	}
}
