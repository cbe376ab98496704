package secrets_test

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"log"
	"log/slog"
	"testing"

	"github.com/evalobs/evalapi/shared/secrets"
	"github.com/evalobs/evalapi/shared/secrets/secretstest"
)

type credential struct {
	Provider string        `json:"provider" xml:"provider"`
	APIKey   secrets.Value `json:"api_key" xml:"api_key"`
	Ptr      *secrets.Value
	hidden   secrets.Value // fmt prints unexported fields by reflection, not through Format
}

func TestValueFmt(t *testing.T) {
	canary := secretstest.Canary(t)
	v := secrets.NewValue(canary)
	c := credential{Provider: "openai", APIKey: v, Ptr: &v, hidden: v}
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "%d", "%o", "%b", "%c", "%U", "%T", "%p", "%10.3v", "%-v", "% x"} {
		for what, arg := range map[string]any{"value": v, "pointer": &v, "struct": c, "struct pointer": &c, "slice": []secrets.Value{v}, "map": map[string]secrets.Value{"k": v}} {
			got := fmt.Sprintf(verb, arg)
			secretstest.NoLeak(t, fmt.Sprintf("fmt %s of %s", verb, what), got, canary)
		}
	}
	if got := fmt.Sprint(v); got != "[redacted]" {
		t.Errorf("fmt.Sprint = %q, want [redacted]", got)
	}
	if got := fmt.Sprintf("%#v", v); got != "[redacted]" {
		t.Errorf("%%#v = %q, want [redacted]", got)
	}
	if got := fmt.Sprint(fmt.Errorf("wrapped: %v", v)); got != "wrapped: [redacted]" {
		t.Errorf("error = %q", got)
	}
}

func TestValueEncoders(t *testing.T) {
	canary := secretstest.Canary(t)
	v := secrets.NewValue(canary)
	c := credential{Provider: "openai", APIKey: v, Ptr: &v, hidden: v}

	j, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"provider":"openai","api_key":"[redacted]","Ptr":"[redacted]"}`; string(j) != want {
		t.Errorf("json = %s, want %s", j, want)
	}
	x, err := xml.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	secretstest.NoLeak(t, "xml", string(x), canary)
	mk, err := json.Marshal(map[string]any{"v": v, "list": []secrets.Value{v}})
	if err != nil {
		t.Fatal(err)
	}
	secretstest.NoLeak(t, "json of a map", string(mk), canary)
}

func TestValueLogs(t *testing.T) {
	canary := secretstest.Canary(t)
	v := secrets.NewValue(canary)
	c := credential{Provider: "openai", APIKey: v, Ptr: &v, hidden: v}

	var buf bytes.Buffer
	for _, h := range []slog.Handler{slog.NewJSONHandler(&buf, nil), slog.NewTextHandler(&buf, nil)} {
		l := slog.New(h)
		l.Info("put", "value", v, "ptr", &v, "cred", c, slog.Any("any", v), slog.Group("g", "v", v))
		l.Error("failed", "err", fmt.Errorf("use %v: %w", v, errors.New("boom")))
		l.With("bound", v).Warn("bound")
	}
	log.New(&buf, "", 0).Printf("std log %v %+v", v, c)
	if !bytes.Contains(buf.Bytes(), []byte("[redacted]")) {
		t.Fatalf("logs hold no [redacted] marker, the test logs nothing useful:\n%s", buf.String())
	}
	secretstest.NoLeak(t, "logs", buf.String(), canary)
}

func TestValueReveal(t *testing.T) {
	in := []byte("s3cret")
	v := secrets.NewValue(in)
	in[0] = 'X' // NewValue copied
	if got := v.RevealString(); got != "s3cret" {
		t.Fatalf("RevealString = %q", got)
	}
	b := v.Reveal()
	b[0] = 'Y' // Reveal copied
	if got := string(v.Reveal()); got != "s3cret" {
		t.Fatalf("Reveal after the caller changed a copy = %q", got)
	}
	if v.IsZero() || !(secrets.Value{}).IsZero() {
		t.Error("IsZero wrong")
	}
	if v.Len() != 6 {
		t.Errorf("Len = %d", v.Len())
	}
	if secrets.NewValueString("x").RevealString() != "x" {
		t.Error("NewValueString")
	}
}

func TestValueFromJSON(t *testing.T) {
	var req struct {
		APIKey secrets.Value `json:"api_key"`
	}
	if err := json.Unmarshal([]byte(`{"api_key":"sk-123"}`), &req); err != nil {
		t.Fatal(err)
	}
	if got := req.APIKey.RevealString(); got != "sk-123" {
		t.Fatalf("decoded %q", got)
	}
	if got := fmt.Sprintf("%+v", req); got != "{APIKey:[redacted]}" {
		t.Errorf("decoded request prints as %q", got)
	}
}
