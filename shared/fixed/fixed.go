// Package fixed is exact decimal arithmetic for the sums the service keeps: a Value is a
// number with nine decimal places in a signed 128-bit integer of billionths, so that sums of
// latencies, tokens, costs and metric values are exact and order-independent, where float64
// sums drift and int64 sums overflow.
//
// A float64 enters as its shortest decimal representation (what strconv prints, and what a
// JSON client sent when it sent at most 15 significant digits), rounded half to even to nine
// decimal places. Sums of accepted values (|v| <= Bound) cannot overflow before 1.7e14 of
// them. Values leave as the nearest float64.
package fixed

import (
	"errors"
	"math"
	"math/big"
	"math/bits"
	"strconv"
	"strings"
)

// Places is the number of decimal places a Value keeps.
const Places = 9

// Bound is the magnitude of the largest value the service accepts into a sum (a stated
// limit of the API: 422 beyond it).
const Bound = 1e15

// Value is a decimal with Places decimal places: hi:lo is the two's-complement 128-bit count
// of billionths. The zero Value is 0.
type Value struct {
	hi int64
	lo uint64
}

// ErrRange is returned for a number a Value cannot hold (beyond 1e20 in magnitude, NaN or
// infinite).
var ErrRange = errors.New("fixed: number out of range")

// limit is the largest magnitude FromFloat takes: far beyond Bound, so that legacy values
// still read, and far below the 1.7e29 a 128-bit count of billionths holds.
const limit = 1e20

// FromInt returns n.
func FromInt(n int64) Value { return mulSmall(fromInt64(n), 1_000_000_000) }

// FromMillionths returns n·10⁻⁶.
func FromMillionths(n int64) Value { return mulSmall(fromInt64(n), 1000) }

// FromFloat returns f rounded half to even to Places decimal places.
func FromFloat(f float64) (Value, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) || math.Abs(f) > limit {
		return Value{}, ErrRange
	}
	if f == math.Trunc(f) && math.Abs(f) < 1<<62 {
		return FromInt(int64(f)), nil
	}
	var buf [32]byte
	text := strconv.AppendFloat(buf[:0], f, 'e', -1, 64)
	if v, ok := fastParse(text); ok {
		return v, nil
	}
	return Parse(string(text))
}

// pow10 are the powers of ten an int64 holds.
var pow10 = func() [19]int64 {
	var p [19]int64
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 10
	}
	return p
}()

// fastParse reads strconv's 'e' format (d.ddde±xx) without allocating, when the result fits
// an int64 count of billionths; ok is false otherwise (Parse takes over).
func fastParse(b []byte) (Value, bool) {
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	var digits int64
	nd, i := 0, 0
	for ; i < len(b) && b[i] != 'e'; i++ {
		if b[i] == '.' {
			continue
		}
		digits = digits*10 + int64(b[i]-'0')
		nd++
	}
	if i >= len(b) || nd > 17 {
		return Value{}, false
	}
	exp, err := strconv.Atoi(string(b[i+1:]))
	if err != nil {
		return Value{}, false
	}
	shift := exp - (nd - 1) + Places // value in billionths = digits × 10^shift
	var n int64
	switch {
	case shift >= 0:
		if shift > 18 || digits > math.MaxInt64/pow10[shift] {
			return Value{}, false
		}
		n = digits * pow10[shift]
	case -shift > 18:
		return Value{}, false
	default:
		d := pow10[-shift]
		q, r := digits/d, digits%d
		if 2*r > d || (2*r == d && q%2 == 1) {
			q++
		}
		n = q
	}
	if neg {
		n = -n
	}
	return fromInt64(n), true
}

// Parse reads a decimal number in JSON's number syntax (exponent allowed), rounded half to
// even to Places decimal places.
func Parse(s string) (Value, error) {
	if v, ok := plainParse(s); ok {
		return v, nil
	}
	return parseBig(s)
}

// plainParse reads [-]digits[.digits], the form String writes, without allocating, when it
// has at most Places decimals and its count of billionths fits an int64; ok is false
// otherwise (parseBig takes over, and answers the same: TestParseFastPathMatchesBig).
func plainParse(s string) (Value, bool) {
	neg := len(s) > 0 && s[0] == '-'
	if neg {
		s = s[1:]
	}
	var n int64
	nd, frac := 0, -1
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '.' {
			if frac >= 0 {
				return Value{}, false
			}
			frac = 0
			continue
		}
		if c < '0' || c > '9' {
			return Value{}, false
		}
		if frac >= 0 {
			if frac++; frac > Places {
				return Value{}, false
			}
		}
		if nd++; nd > 18 {
			return Value{}, false
		}
		n = n*10 + int64(c-'0')
	}
	if nd == 0 {
		return Value{}, false
	}
	shift := Places - max(frac, 0)
	if nd+shift > 18 {
		return Value{}, false
	}
	n *= pow10[shift]
	if neg {
		n = -n
	}
	return fromInt64(n), true
}

// parseBig is Parse for any number of JSON's syntax, by math/big.
func parseBig(s string) (Value, error) {
	mant, exp := s, 0
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		e, err := strconv.Atoi(s[i+1:])
		if err != nil {
			return Value{}, ErrRange
		}
		mant, exp = s[:i], e
	}
	neg := strings.HasPrefix(mant, "-")
	mant = strings.TrimPrefix(strings.TrimPrefix(mant, "-"), "+")
	intPart, frac, _ := strings.Cut(mant, ".")
	digits := strings.TrimLeft(intPart+frac, "0")
	if digits == "" {
		return Value{}, nil
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return Value{}, ErrRange
		}
	}
	// value = digits × 10^(exp - len(frac)); in billionths: × 10^(exp - len(frac) + Places).
	shift := exp - len(frac) + Places
	n, ok := new(big.Int).SetString(digits, 10)
	if !ok {
		return Value{}, ErrRange
	}
	if len(digits)+shift > 40 {
		return Value{}, ErrRange
	}
	if shift >= 0 {
		n.Mul(n, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(shift)), nil))
	} else {
		if -shift > len(digits)+1 {
			return Value{}, nil // far below a billionth
		}
		d := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(-shift)), nil)
		q, r := new(big.Int).QuoRem(n, d, new(big.Int))
		switch r.Lsh(r, 1).Cmp(d) { // half to even
		case 1:
			q.Add(q, big.NewInt(1))
		case 0:
			if q.Bit(0) == 1 {
				q.Add(q, big.NewInt(1))
			}
		}
		n = q
	}
	if neg {
		n.Neg(n)
	}
	return fromBig(n)
}

// Add returns a+b; ErrRange on overflow (never for sums of accepted values).
func (a Value) Add(b Value) (Value, error) {
	lo, carry := bits.Add64(a.lo, b.lo, 0)
	hi := a.hi + b.hi + int64(carry)
	// Overflow when both operands have the sign the result lacks.
	if (a.hi >= 0) == (b.hi >= 0) && (hi >= 0) != (a.hi >= 0) {
		return Value{}, ErrRange
	}
	return Value{hi: hi, lo: lo}, nil
}

// MustAdd is Add for sums bounded by construction (of values no larger than Bound).
func (a Value) MustAdd(b Value) Value {
	s, err := a.Add(b)
	if err != nil {
		panic(err)
	}
	return s
}

// Cmp returns -1, 0 or +1 as a is less than, equal to or greater than b.
func (a Value) Cmp(b Value) int {
	switch {
	case a.hi < b.hi:
		return -1
	case a.hi > b.hi:
		return 1
	case a.lo < b.lo:
		return -1
	case a.lo > b.lo:
		return 1
	}
	return 0
}

// IsZero reports whether a is 0.
func (a Value) IsZero() bool { return a.hi == 0 && a.lo == 0 }

// String is a's canonical decimal text: no exponent, no trailing zeros ("-12.5", "3").
func (a Value) String() string {
	s := a.big().String()
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	if len(s) <= Places {
		s = strings.Repeat("0", Places-len(s)+1) + s
	}
	intPart, frac := s[:len(s)-Places], strings.TrimRight(s[len(s)-Places:], "0")
	out := intPart
	if frac != "" {
		out += "." + frac
	}
	if neg {
		out = "-" + out
	}
	return out
}

// Float64 is the float64 nearest to a.
func (a Value) Float64() float64 {
	f, _ := strconv.ParseFloat(a.String(), 64)
	return f
}

// Quo is a/n as the float64 nearest to the exact quotient (an average); n must be positive.
func (a Value) Quo(n int64) float64 {
	r := new(big.Rat).SetFrac(a.big(), new(big.Int).Mul(big.NewInt(n), big.NewInt(1_000_000_000)))
	f, _ := r.Float64()
	return f
}

// Limbs splits a (of magnitude below 2^80 billionths: every accepted value) into three
// int64s with a = l[2]·2^54 + l[1]·2^27 + l[0] and 0 <= l[0], l[1] < 2^27: sums of limbs
// are exact int64 ADDs in the table for 2^36 values, and FromLimbs rebuilds the sum.
func (a Value) Limbs() [3]int64 {
	const m = 1<<27 - 1
	l0 := int64(a.lo & m)
	l1 := int64((a.lo >> 27) & m)
	// a >> 54, arithmetic: the top 10 bits of lo and all of hi.
	l2 := int64(a.lo>>54) | a.hi<<10
	return [3]int64{l0, l1, l2}
}

// FromLimbs rebuilds a Value from sums of Limbs: l[2]·2^54 + l[1]·2^27 + l[0] in 128-bit
// arithmetic, which int64 limbs cannot overflow (|l[2]·2^54| < 2^117).
func FromLimbs(l [3]int64) (Value, error) {
	v, err := shl(fromInt64(l[2]), 54).Add(shl(fromInt64(l[1]), 27))
	if err != nil {
		return Value{}, err
	}
	return v.Add(fromInt64(l[0]))
}

// shl returns a·2^n for 0 < n < 64 (no overflow for the inputs used here).
func shl(a Value, n uint) Value {
	return Value{hi: a.hi<<n | int64(a.lo>>(64-n)), lo: a.lo << n}
}

func fromInt64(n int64) Value {
	hi := int64(0)
	if n < 0 {
		hi = -1
	}
	return Value{hi: hi, lo: uint64(n)}
}

// mulSmall returns a×m for a small positive m (no overflow for the inputs used here).
func mulSmall(a Value, m uint64) Value {
	neg := a.hi < 0
	if neg {
		a = a.neg()
	}
	hiLo, lo := bits.Mul64(a.lo, m)
	out := Value{hi: int64(uint64(a.hi)*m + hiLo), lo: lo}
	if neg {
		out = out.neg()
	}
	return out
}

// Neg returns -a.
func (a Value) Neg() Value { return a.neg() }

func (a Value) neg() Value {
	lo, borrow := bits.Sub64(0, a.lo, 0)
	return Value{hi: -a.hi - int64(borrow), lo: lo}
}

var two128 = new(big.Int).Lsh(big.NewInt(1), 128)

func (a Value) big() *big.Int {
	n := new(big.Int).SetUint64(uint64(a.hi))
	n.Lsh(n, 64).Or(n, new(big.Int).SetUint64(a.lo))
	if a.hi < 0 {
		n.Sub(n, two128)
	}
	return n
}

var (
	maxValue = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 127), big.NewInt(1))
	minValue = new(big.Int).Neg(new(big.Int).Lsh(big.NewInt(1), 127))
)

func fromBig(n *big.Int) (Value, error) {
	if n.Cmp(maxValue) > 0 || n.Cmp(minValue) < 0 {
		return Value{}, ErrRange
	}
	u := new(big.Int).Set(n)
	if u.Sign() < 0 {
		u.Add(u, two128)
	}
	lo := new(big.Int).And(u, new(big.Int).SetUint64(math.MaxUint64)).Uint64()
	hi := new(big.Int).Rsh(u, 64).Uint64()
	return Value{hi: int64(hi), lo: lo}, nil
}

// MarshalJSON writes a as a JSON number in its exact decimal text.
func (a Value) MarshalJSON() ([]byte, error) { return []byte(a.String()), nil }

// UnmarshalJSON reads a JSON number (or a string of one).
func (a *Value) UnmarshalJSON(b []byte) error {
	v, err := Parse(strings.Trim(string(b), `"`))
	if err != nil {
		return err
	}
	*a = v
	return nil
}
