package credentials

import (
	"errors"
	"strings"
	"testing"

	"github.com/evalobs/evalapi/shared/secrets"
	"github.com/evalobs/evalapi/shared/store"
)

func TestEncodeRead(t *testing.T) {
	sec := secrets.NewMemory()
	in := store.Integration{ID: "i-1", Revision: "r-2"}
	set := Set{Token: secrets.NewValueString("tok"), APIKeyValue: secrets.NewValueString("key"),
		Headers: map[string]secrets.Value{"X-H": secrets.NewValueString("hv")}}
	for _, tc := range []struct {
		revision string
		ok       bool
	}{{"r-2", true}, {"r-1", false}} {
		b, err := Encode(tc.revision, set)
		if err != nil {
			t.Fatal(err)
		}
		if in.SecretRef, err = sec.Put(t.Context(), SecretName(in.ID), b, nil); err != nil {
			t.Fatal(err)
		}
		got, ok, err := Read(t.Context(), sec, in)
		if err != nil || ok != tc.ok || got.Token.RevealString() != "tok" || got.APIKeyValue.RevealString() != "key" ||
			got.Headers["X-H"].RevealString() != "hv" {
			t.Fatalf("revision %s: ok=%v err=%v", tc.revision, ok, err)
		}
	}
	if _, _, err := Read(t.Context(), sec, store.Integration{SecretRef: "integrations/none"}); !errors.Is(err, secrets.ErrNotFound) {
		t.Fatalf("missing secret: %v", err)
	}
	if _, err := sec.Put(t.Context(), "integrations/bad", []byte("not json tok"), nil); err != nil {
		t.Fatal(err)
	}
	_, _, err := Read(t.Context(), sec, store.Integration{SecretRef: "integrations/bad"})
	if err == nil || strings.Contains(err.Error(), "tok") {
		t.Fatalf("a value that is no document: %v", err)
	}
}
