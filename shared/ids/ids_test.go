package ids_test

import (
	"testing"

	"github.com/google/uuid"

	"github.com/evalobs/evalapi/shared/ids"
)

func TestHashedIsDeterministicUUID4(t *testing.T) {
	ns := uuid.MustParse("3f1c5e7a-9b2d-4c6e-8a0f-1d2e3f4a5b6c")
	other := uuid.MustParse("0b6d1c7e-6a53-4f0e-9a57-3c8f1d2e4a90")
	seen := map[string]string{}
	for _, name := range []string{"", "user-42", "user-43", "run/abc", "é✓"} {
		a, b := ids.Hashed(ns, name), ids.Hashed(ns, name)
		if a != b {
			t.Errorf("Hashed(%q) = %s then %s, want one id", name, a, b)
		}
		if !ids.IsUUID4(a) {
			t.Errorf("Hashed(%q) = %s, not a UUID4", name, a)
		}
		if prev, ok := seen[a]; ok {
			t.Errorf("Hashed(%q) = Hashed(%q) = %s", name, prev, a)
		}
		seen[a] = name
		if ids.Hashed(other, name) == a {
			t.Errorf("Hashed(%q) is the same id in two namespaces", name)
		}
	}
}

func TestIsUUID4(t *testing.T) {
	for _, tc := range []struct {
		id   string
		want bool
	}{
		{ids.New(), true},
		{"9d3e2f1a-5b4c-4d6e-9f0a-1b2c3d4e5f60", true},
		{"9D3E2F1A-5B4C-4D6E-9F0A-1B2C3D4E5F60", true},
		{uuid.NewSHA1(uuid.NameSpaceURL, []byte("x")).String(), false}, // v5
		{uuid.Must(uuid.NewV7()).String(), false},                      // v7
		{uuid.NewMD5(uuid.NameSpaceURL, []byte("x")).String(), false},  // v3
		{"9d3e2f1a-5b4c-4d6e-cf0a-1b2c3d4e5f60", false},                // Microsoft variant
		{"9d3e2f1a5b4c4d6e9f0a1b2c3d4e5f60", false},                    // not canonical
		{"urn:uuid:9d3e2f1a-5b4c-4d6e-9f0a-1b2c3d4e5f60", false},
		{"{9d3e2f1a-5b4c-4d6e-9f0a-1b2c3d4e5f6}", false},
		{"", false},
		{"not-an-id", false},
	} {
		if got := ids.IsUUID4(tc.id); got != tc.want {
			t.Errorf("IsUUID4(%q) = %v, want %v", tc.id, got, tc.want)
		}
	}
}

// BenchmarkHashed is the cost of a derived id against the version-5 one it replaces (three
// per OTLP span: the span, its parent and its trace).
func BenchmarkHashed(b *testing.B) {
	ns := uuid.MustParse("0b6d1c7e-6a53-4f0e-9a57-3c8f1d2e4a90")
	name := "9d3e2f1a-5b4c-4d6e-9f0a-1b2c3d4e5f60/0af7651916cd43dd8448eb211c80319c/b7ad6b7169203331"
	b.Run("uuid4-sha256", func(b *testing.B) {
		for b.Loop() {
			ids.Hashed(ns, name)
		}
	})
	b.Run("uuid5-sha1", func(b *testing.B) {
		for b.Loop() {
			_ = uuid.NewSHA1(ns, []byte(name)).String()
		}
	})
}
