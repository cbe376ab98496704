package store

import (
	"math"
	"math/rand/v2"
	"reflect"
	"strconv"
	"testing"

	"github.com/evalobs/evalapi/shared/fixed"
)

// fixed.Value's case answers as its UnmarshalJSON on the value's JSON (the route it replaces)
// on the numbers and strings an item holds: integers to int64's edges, floats over 40 orders of
// magnitude, texts of numbers and not, and values of other kinds.
func TestDecodeFixedMatchesJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 9))
	xs := []any{nil, true, "", "x", "1", "-2.5", "1e3", "1E-12", "+3", "--1", "1.2.3", "1e400", "0x10",
		[]any{int64(1)}, map[string]any{"a": int64(1)}, 0.0, math.Copysign(0, -1), 1e15, -1e15, 1e20, 1e21, 1e-10, 5e-10, 15e-10}
	for _, n := range []int64{0, 1, -1, math.MaxInt64, math.MinInt64, math.MaxInt64 / 1_000_000_000, math.MaxInt64/1_000_000_000 + 1, 1 << 53} {
		xs = append(xs, n, -n)
	}
	for range 20000 {
		f := (rng.Float64() - 0.5) * math.Pow(10, float64(rng.IntN(40)-20))
		xs = append(xs, f, rng.Int64()>>rng.IntN(64), strconv.FormatFloat(f, 'g', -1, 64))
	}
	typ := reflect.TypeFor[fixed.Value]()
	for _, x := range xs {
		want, got := reflect.New(typ).Elem(), reflect.New(typ).Elem()
		errWant := decodeViaJSON(x, want)
		errGot := decodeFixed(x, got)
		if (errWant == nil) != (errGot == nil) || errWant == nil && want.Interface() != got.Interface() {
			t.Fatalf("%T %v: JSON route %v (%v), typed %v (%v)", x, x, want.Interface(), errWant, got.Interface(), errGot)
		}
	}
}
