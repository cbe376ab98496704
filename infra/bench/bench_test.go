package main

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// The benchmarks themselves run by hand (make bench-http, bench-scan, sizes); these tests
// cover the arithmetic and parsing their figures rest on, in well under a second.

func TestPercentileAndMedian(t *testing.T) {
	ms := func(xs ...int) []time.Duration {
		var out []time.Duration
		for _, x := range xs {
			out = append(out, time.Duration(x)*time.Millisecond)
		}
		return out
	}
	hundred := make([]time.Duration, 100)
	for i := range hundred {
		hundred[i] = time.Duration(i+1) * time.Millisecond
	}
	for _, c := range []struct {
		sorted []time.Duration
		p      int
		want   time.Duration
	}{
		{nil, 99, 0},
		{ms(7), 50, 7 * time.Millisecond},
		{ms(1, 2, 3, 4), 50, 2 * time.Millisecond},
		{ms(1, 2, 3, 4), 99, 4 * time.Millisecond},
		{hundred, 99, 99 * time.Millisecond},
		{hundred, 50, 50 * time.Millisecond},
	} {
		if got := percentile(c.sorted, c.p); got != c.want {
			t.Errorf("percentile(%v, %d) = %v, want %v", c.sorted, c.p, got, c.want)
		}
	}
	for _, c := range []struct {
		xs   []float64
		want float64
	}{{nil, 0}, {[]float64{3, 1, 2}, 2}, {[]float64{4, 1, 3, 2}, 2.5}} {
		in := slices.Clone(c.xs)
		if got := median(c.xs); got != c.want || !slices.Equal(in, c.xs) {
			t.Errorf("median(%v) = %v, want %v (input unchanged)", in, got, c.want)
		}
	}
}

func TestParseStatCPU(t *testing.T) {
	// Field 2 may hold spaces and parentheses; utime 250 and stime 50 ticks.
	line := "4242 (evil) (name x) S 1 4242 4242 0 -1 4194560 500 0 0 0 250 50 0 0 20 0 9 0 100 1000 200 18446744073709551615"
	got, err := parseStatCPU(line)
	if err != nil || got != 3*time.Second {
		t.Fatalf("parseStatCPU = %v, %v; want 3s", got, err)
	}
	if _, err := parseStatCPU("4242 (x) S 1 2"); err == nil {
		t.Error("a short line parsed")
	}
}

func TestSymbolPackage(t *testing.T) {
	for name, want := range map[string]string{
		"github.com/aws/aws-sdk-go-v2/service/dynamodb.(*Client).GetItem":          "github.com/aws/aws-sdk-go-v2/service/dynamodb",
		"github.com/aws/aws-sdk-go-v2/service/dynamodb/schemas.init.0":             "github.com/aws/aws-sdk-go-v2/service/dynamodb/schemas",
		"net/http.(*Transport).dialConn":                                           "net/http",
		"runtime.mallocgc":                                                         "runtime",
		"type:.eq.net/http.Request":                                                "net/http",
		"type:.eq.[2]interface {}":                                                 generated,
		"go:itab.*crypto/tls.Conn,net.Conn":                                        "crypto/tls",
		"slices.SortFunc[go.shape.[]string,go.shape.string]":                       "slices",
		"github.com/evalobs/evalapi/shared/store.Get[github.com/x/y.T]":            "github.com/evalobs/evalapi/shared/store",
		"vendor/golang.org/x/net/idna.idnaValues":                                  "vendor/golang.org/x/net/idna",
		"type:.eq.struct { a int; b string }":                                      generated,
		"go:struct { io.Reader; io.WriterTo }.Read":                                generated,
		"github.com/golang-jwt/jwt/v5.(*Parser).ParseWithClaims.func1":             "github.com/golang-jwt/jwt/v5",
		"gopkg.in/yaml%2ev3.(*parser).parse":                                       "gopkg.in/yaml.v3",
		"github.com/aws/smithy-go/transport/http/protocol/internal/json.(*E).Name": "github.com/aws/smithy-go/transport/http/protocol/internal/json",
	} {
		if got := symbolPackage(name); got != want {
			t.Errorf("symbolPackage(%q) = %q, want %q", name, got, want)
		}
	}
	mods := []string{"github.com/evalobs/evalapi", "github.com/aws/aws-sdk-go-v2", "github.com/aws/aws-sdk-go-v2/service/dynamodb"}
	for pkg, want := range map[string]string{
		"github.com/aws/aws-sdk-go-v2/service/dynamodb/types": "github.com/aws/aws-sdk-go-v2/service/dynamodb",
		"github.com/aws/aws-sdk-go-v2/aws/retry":              "github.com/aws/aws-sdk-go-v2",
		"github.com/aws/aws-sdk-go-v2x/other":                 "std", // a prefix of the path is not a parent
		"github.com/evalobs/evalapi/shared/store":             "github.com/evalobs/evalapi",
		"net/http": "std",
		generated:  generated,
	} {
		if got := moduleOf(pkg, mods); got != want {
			t.Errorf("moduleOf(%q) = %q, want %q", pkg, got, want)
		}
	}
}

func TestFlags(t *testing.T) {
	got, err := splitFlags(`-tags lambda.norpc -ldflags "-s -w" -trimpath`)
	want := []string{"-tags", "lambda.norpc", "-ldflags", "-s -w", "-trimpath"}
	if err != nil || !slices.Equal(got, want) {
		t.Fatalf("splitFlags = %q, %v; want %q", got, err, want)
	}
	if _, err := splitFlags(`-ldflags "-s`); err == nil {
		t.Error("an unbalanced quote was accepted")
	}
	if got := unstripped(want); !slices.Equal(got, []string{"-tags", "lambda.norpc", "-ldflags", "", "-trimpath"}) {
		t.Errorf("unstripped = %q", got)
	}
	if got := unstripped([]string{"-ldflags=-s -w -X main.v=1"}); !slices.Equal(got, []string{"-ldflags=-X main.v=1"}) {
		t.Errorf("unstripped = %q", got)
	}
}

func TestParseInitTrace(t *testing.T) {
	in := `init internal/bytealg @0.005 ms, 0 ms clock, 0 bytes, 0 allocs
some other line
init github.com/aws/aws-sdk-go-v2/service/dynamodb/schemas @0.93 ms, 0.40 ms clock, 586696 bytes, 3151 allocs
`
	got := parseInitTrace(strings.NewReader(in))
	want := []initLine{{"internal/bytealg", 0, 0}, {"github.com/aws/aws-sdk-go-v2/service/dynamodb/schemas", 0.40, 586696}}
	if !slices.Equal(got, want) {
		t.Errorf("parseInitTrace = %+v, want %+v", got, want)
	}
}

func TestCompareAggregates(t *testing.T) {
	ours := map[string]any{"count": 952.0, "latency_ms": 512.25, "tone": map[string]any{"curt": 3.0}, "toxicity": nil}
	same := map[string]any{"count": 952.0, "latency_ms": 512.25 * (1 + 1e-9), "tone": map[string]any{"curt": 3.0}, "toxicity": nil}
	if d := compareAggregates(ours, same); d != "" {
		t.Errorf("equal aggregates differ: %s", d)
	}
	for _, theirs := range []map[string]any{
		{"count": 951.0, "latency_ms": 512.25, "tone": map[string]any{"curt": 3.0}, "toxicity": nil},
		{"count": 952.0, "latency_ms": 512.3, "tone": map[string]any{"curt": 3.0}, "toxicity": nil},
		{"count": 952.0, "latency_ms": 512.25, "tone": map[string]any{"curt": 2.0}, "toxicity": nil},
		{"count": 952.0, "latency_ms": 512.25, "tone": map[string]any{"curt": 3.0, "formal": 1.0}, "toxicity": nil},
		{"count": 952.0, "latency_ms": 512.25, "tone": map[string]any{"curt": 3.0}, "toxicity": 0.1},
		{"latency_ms": 512.25, "tone": map[string]any{"curt": 3.0}, "toxicity": nil},
	} {
		if compareAggregates(ours, theirs) == "" {
			t.Errorf("%v passed as equal to %v", theirs, ours)
		}
	}
}

func TestProse(t *testing.T) {
	a, b := prose(1, rowText), prose(2, rowText)
	if len(a) != rowText || len(b) != rowText || a == b {
		t.Errorf("prose: %q, %q: want two different texts of %d bytes", a, b, rowText)
	}
}

func TestCommas(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 9371810: "9,371,810"} {
		if got := commas(n); got != want {
			t.Errorf("commas(%d) = %q, want %q", n, got, want)
		}
	}
}

// A function over its budget, or without one, is reported; hello and functions within
// their budgets are not.
func TestSizeBudgets(t *testing.T) {
	sb := sizeBudgets{"a": {"arm64": 100, "amd64": 120}, "b": {"arm64": 100}}
	for _, tc := range []struct {
		size map[string]map[string]int64
		want int
	}{
		{map[string]map[string]int64{"arm64": {hello: 999, "a": 100, "b": 50}, "amd64": {"a": 120}}, 0},
		{map[string]map[string]int64{"arm64": {"a": 101}}, 1},
		{map[string]map[string]int64{"amd64": {"b": 1}}, 1},
		{map[string]map[string]int64{"arm64": {"c": 1, "a": 200}, "amd64": {"a": 121}}, 3},
	} {
		if got := sb.check(tc.size); len(got) != tc.want {
			t.Errorf("%v: %d findings %q, want %d", tc.size, len(got), got, tc.want)
		}
	}
}
