package fixed

import (
	"math"
	"math/big"
	"math/rand/v2"
	"strconv"
	"testing"
)

func TestParseAndString(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"0", "0"}, {"-0", "0"}, {"1", "1"}, {"-12.5", "-12.5"}, {"0.000000001", "0.000000001"},
		{"0.0000000005", "0"}, {"0.0000000015", "0.000000002"}, {"0.0000000025", "0.000000002"}, // half to even
		{"-0.0000000015", "-0.000000002"}, {"1e15", "1000000000000000"}, {"1.5e-3", "0.0015"},
		{"999999999999999.999999999", "999999999999999.999999999"}, {"123.4567890124", "123.456789012"},
		{"1e-300", "0"}, {"+7", "7"}, {"1E2", "100"},
	} {
		v, err := Parse(tc.in)
		if err != nil || v.String() != tc.want {
			t.Errorf("Parse(%q) = %v %v, want %s", tc.in, v, err, tc.want)
		}
	}
	for _, bad := range []string{"1e40", "abc", "1e", "--1"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) succeeded", bad)
		}
	}
}

func TestFromFloat(t *testing.T) {
	for _, tc := range []struct {
		in   float64
		want string
	}{{0.1, "0.1"}, {0.1 + 0.2, "0.3"}, {1e15, "1000000000000000"}, {-3, "-3"}, {123.456, "123.456"}, {1e-10, "0"}} {
		v, err := FromFloat(tc.in)
		if err != nil || v.String() != tc.want {
			t.Errorf("FromFloat(%v) = %v %v, want %s", tc.in, v, err, tc.want)
		}
	}
	for _, bad := range []float64{math.NaN(), math.Inf(1), 1e21, -1e300} {
		if _, err := FromFloat(bad); err == nil {
			t.Errorf("FromFloat(%v) succeeded", bad)
		}
	}
}

// TestSumsAreExact adds random values up to Bound with up to nine decimals, in two orders
// and through limbs, against a big.Rat reference.
func TestSumsAreExact(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		var sum, rev Value
		var l [3]int64
		ref := new(big.Rat)
		var vals []Value
		for range 1 + r.IntN(300) {
			s := randomDecimal(r)
			v, err := Parse(s)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := new(big.Rat).SetString(s)
			if got, _ := new(big.Rat).SetString(v.String()); got.Cmp(want) != 0 {
				t.Fatalf("Parse(%s) = %s", s, v)
			}
			ref.Add(ref, want)
			sum = sum.MustAdd(v)
			vals = append(vals, v)
			for i, x := range v.Limbs() {
				l[i] += x
			}
			if b := v.Limbs(); b[0] < 0 || b[0] >= 1<<27 || b[1] < 0 || b[1] >= 1<<27 {
				t.Fatalf("limbs of %s out of range: %v", v, b)
			}
		}
		for i := len(vals) - 1; i >= 0; i-- {
			rev = rev.MustAdd(vals[i])
		}
		fromLimbs, err := FromLimbs(l)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := new(big.Rat).SetString(sum.String())
		if got.Cmp(ref) != 0 || rev.Cmp(sum) != 0 || fromLimbs.Cmp(sum) != 0 {
			t.Fatalf("sum %s, reversed %s, limbs %s; want %s", sum, rev, fromLimbs, ref.FloatString(9))
		}
		f, _ := ref.Float64()
		if sum.Float64() != f {
			t.Fatalf("Float64 %v, want %v", sum.Float64(), f)
		}
		n := int64(len(vals))
		avg, _ := new(big.Rat).Quo(ref, new(big.Rat).SetInt64(n)).Float64()
		if sum.Quo(n) != avg {
			t.Fatalf("Quo %v, want %v", sum.Quo(n), avg)
		}
	}
}

func TestCmpAndOverflow(t *testing.T) {
	a, _ := Parse("-1.5")
	b, _ := Parse("2")
	if a.Cmp(b) != -1 || b.Cmp(a) != 1 || a.Cmp(a) != 0 {
		t.Fatal("Cmp")
	}
	max, _ := fromBig(maxValue)
	if _, err := max.Add(FromInt(1)); err == nil {
		t.Fatal("overflow not reported")
	}
}

func randomDecimal(r *rand.Rand) string {
	digits := r.IntN(16) + 1
	s := ""
	for range digits {
		s += strconv.Itoa(r.IntN(10))
	}
	frac := ""
	for range r.IntN(10) {
		frac += strconv.Itoa(r.IntN(10))
	}
	out := s
	if frac != "" {
		out += "." + frac
	}
	if v, _ := new(big.Rat).SetString(out); v.Cmp(big.NewRat(1e15, 1)) > 0 {
		out = "1000000000000000"
	}
	if r.IntN(3) == 0 {
		out = "-" + out
	}
	return out
}

func BenchmarkFromFloat(b *testing.B) {
	for i := range b.N {
		_, _ = FromFloat(float64(i) * 1.37)
	}
}

// TestFastParseAgrees holds the allocation-free path of FromFloat to Parse.
func TestFastParseAgrees(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 100000 {
		f := (r.Float64() - 0.5) * math.Pow(10, float64(r.IntN(30)-12))
		text := strconv.FormatFloat(f, 'e', -1, 64)
		slow, err := Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		if fast, ok := fastParse([]byte(text)); ok && fast.Cmp(slow) != 0 {
			t.Fatalf("%s: fast %s, Parse %s", text, fast, slow)
		}
	}
}

// fromLimbsBig is FromLimbs as it was, by math/big: the reference.
func fromLimbsBig(l [3]int64) (Value, error) {
	n := new(big.Int).Lsh(big.NewInt(l[2]), 54)
	n.Add(n, new(big.Int).Lsh(big.NewInt(l[1]), 27))
	n.Add(n, big.NewInt(l[0]))
	return fromBig(n)
}

// FromLimbs in 128-bit arithmetic rebuilds what math/big does, on limbs of every sign and
// size, and on the limbs of random values.
func TestFromLimbsMatchesBig(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	edges := []int64{0, 1, -1, 1<<27 - 1, 1 << 27, math.MaxInt64, math.MinInt64, 1 << 40, -(1 << 40)}
	var cases [][3]int64
	for _, a := range edges {
		for _, b := range edges {
			for _, c := range edges {
				cases = append(cases, [3]int64{a, b, c})
			}
		}
	}
	for range 20000 {
		cases = append(cases, [3]int64{rng.Int64() >> rng.IntN(64), -rng.Int64() >> rng.IntN(64), rng.Int64() >> rng.IntN(64)})
		v, _ := FromFloat(rng.NormFloat64() * math.Pow(10, float64(rng.IntN(16))))
		cases = append(cases, v.Limbs())
	}
	for _, l := range cases {
		want, errW := fromLimbsBig(l)
		got, errG := FromLimbs(l)
		if got != want || (errW == nil) != (errG == nil) {
			t.Fatalf("FromLimbs(%v) = %v, %v; math/big: %v, %v", l, got, errG, want, errW)
		}
	}
}

// Parse's fast path answers as the math/big path on every text it takes, and leaves the
// rest to it.
func TestParseFastPathMatchesBig(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	texts := []string{"0", "-0", "1", "-1", "1.", ".5", "-.5", ".", "-", "", "1.2.3", "+1", "1e3", "0.000000001",
		"0.0000000005", "0.0000000015", "999999999.999999999", "9999999999.999999999", "123456789012345678",
		"1234567890123456789", "000000000000000000001", "1.1234567891", "-12.5", "1_0", " 1", "1 "}
	for range 50000 {
		digits := func(n int) string {
			b := make([]byte, n)
			for i := range b {
				b[i] = byte('0' + rng.IntN(10))
			}
			return string(b)
		}
		intPart, frac := digits(1+rng.IntN(12)), digits(rng.IntN(11))
		s := intPart
		if rng.IntN(3) > 0 {
			s += "." + frac
		}
		if rng.IntN(2) == 0 {
			s = "-" + s
		}
		texts = append(texts, s)
	}
	fast := 0
	for _, s := range texts {
		want, errW := parseBig(s)
		got, errG := Parse(s)
		if got != want || (errW == nil) != (errG == nil) {
			t.Fatalf("Parse(%q) = %v, %v; math/big: %v, %v", s, got, errG, want, errW)
		}
		if _, ok := plainParse(s); ok {
			fast++
		}
	}
	if fast < len(texts)/2 {
		t.Fatalf("the fast path took %d of %d texts", fast, len(texts))
	}
}

func TestFromMillionths(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	ns := []int64{0, 1, -1, 999_999, 1_000_000, math.MaxInt64, math.MinInt64 + 1}
	for range 10000 {
		ns = append(ns, rng.Int64()>>rng.IntN(64)*int64(1-2*rng.IntN(2)))
	}
	for _, n := range ns {
		want, err := Parse(strconv.FormatInt(n, 10) + "e-6")
		if got := FromMillionths(n); err != nil || got != want {
			t.Fatalf("FromMillionths(%d) = %v, want %v (%v)", n, got, want, err)
		}
	}
}
