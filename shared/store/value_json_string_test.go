package store

import (
	"bytes"
	"encoding/json"
	"math/rand"
	"strings"
	"testing"
)

// AppendJSONString writes what encoding/json writes (SetEscapeHTML(false)) at every position
// of the bytes it treats specially, within and across its 8-byte steps.
func TestAppendJSONStringMatchesEncodingJSON(t *testing.T) {
	specials := []string{"\"", "\\", "\x00", "\x1f", " ", "\x7f", "\u0080", "é", "✓", "\u2028", "\u2029", "\xff", "\xe2\x80", "<", "&"}
	r := rand.New(rand.NewSource(1))
	var cases []string
	for n := range 20 {
		for _, sp := range specials {
			for at := 0; at <= n; at++ {
				plain := strings.Repeat("abcdefgh", 3)[:n]
				cases = append(cases, plain[:at]+sp+plain[at:])
			}
		}
	}
	for range 2000 {
		var b strings.Builder
		for range r.Intn(40) {
			if r.Intn(4) == 0 {
				b.WriteString(specials[r.Intn(len(specials))])
			} else {
				b.WriteByte(byte(' ' + r.Intn(95)))
			}
		}
		cases = append(cases, b.String())
	}
	for _, s := range cases {
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(s); err != nil {
			t.Fatal(err)
		}
		if got := AppendJSONString(nil, s); string(got) != strings.TrimSuffix(want.String(), "\n") {
			t.Fatalf("%q:\n got  %s\n want %s", s, got, want.String())
		}
	}
}

func BenchmarkAppendJSONString(b *testing.B) {
	s := "row 17: the model answered a question about billing with a short p"
	buf := make([]byte, 0, 128)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		buf = AppendJSONString(buf[:0], s)
	}
}
