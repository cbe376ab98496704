package secrets_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/evalobs/evalapi/shared/secrets"
	"github.com/evalobs/evalapi/shared/secrets/secretstest"
)

func TestMemory(t *testing.T) {
	secretstest.Run(t, func(*testing.T) secrets.Store { return secrets.NewMemory() })
}

func TestCachedConformance(t *testing.T) {
	// The cache must keep the port's semantics: a Put or Delete through it shows at once.
	secretstest.Run(t, func(*testing.T) secrets.Store { return secrets.Cached(secrets.NewMemory(), time.Hour) })
}

func TestMemoryTags(t *testing.T) {
	m := secrets.NewMemory()
	ref, err := m.Put(t.Context(), "n", []byte("v1"), map[string]string{"org": "o1"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Put(t.Context(), "n", []byte("v2"), map[string]string{"org": "o2"}); err != nil {
		t.Fatal(err)
	}
	if tags, ok := m.Tags(ref); !ok || tags["org"] != "o1" {
		t.Errorf("Tags = %v, %v; want the tags of the first Put, as Secrets Manager keeps them", tags, ok)
	}
}

func TestCheckName(t *testing.T) {
	for _, tc := range []struct {
		name string
		ok   bool
	}{
		{"a", true},
		{"evalapi/dev/integration/3f2a-openai", true},
		{"Az09/_+=.@-", true},
		{strings.Repeat("x", secrets.MaxNameLen), true},
		{strings.Repeat("x", secrets.MaxNameLen+1), false},
		{"", false},
		{" lead", false},
		{"tab\t", false},
		{"pct%", false},
		{"quote\"", false},
		{"arn:aws", false},
		{"é", false},
	} {
		err := secrets.CheckName(tc.name)
		if tc.ok && err != nil {
			t.Errorf("CheckName(%q) = %v, want nil", tc.name, err)
		}
		if !tc.ok && !errors.Is(err, secrets.ErrInvalidName) {
			t.Errorf("CheckName(%q) = %v, want ErrInvalidName", tc.name, err)
		}
	}
}

func TestCheckValue(t *testing.T) {
	for _, tc := range []struct {
		len int
		ok  bool
	}{{0, false}, {1, true}, {secrets.MaxValueLen, true}, {secrets.MaxValueLen + 1, false}} {
		err := secrets.CheckValue(make([]byte, tc.len))
		if tc.ok != (err == nil) || (!tc.ok && !errors.Is(err, secrets.ErrInvalidValue)) {
			t.Errorf("CheckValue(%d bytes) = %v, want ok=%v", tc.len, err, tc.ok)
		}
	}
}
