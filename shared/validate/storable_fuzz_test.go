package validate

import (
	"math"
	"testing"
)

// FuzzStorableNumber holds every number a request may carry to the table to the storable
// range: whatever the text, Float either answers a number the table can hold (0, or a
// magnitude from MinStorable to MaxStorable) or records a problem; with StoreTinyAsZero a
// too small magnitude is 0 instead.
func FuzzStorableNumber(f *testing.F) {
	for _, s := range []string{"0", "-0", "1", "1e200", "-1e200", "1e-300", "1e-130", "-1e-130", "9.9999999999999999999999999999999999999e125",
		"1e126", "1e308", "1e309", "0.5", "-2.5e-131", "123456789012345.678901234", `"1e200"`, "true", "null"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		raw, err := ParseJSON([]byte(`{"x":` + text + `}`))
		if err != nil {
			return
		}
		for _, tiny := range []bool{false, true} {
			errs := New()
			o, ok := errs.Body(raw, true).Object()
			if !ok {
				return
			}
			var rules []Rule
			if tiny {
				rules = append(rules, StoreTinyAsZero())
			}
			v, ok := o.Get("x").Float(rules...)
			switch {
			case ok && (!Storable(v) || math.IsNaN(v)):
				t.Fatalf("%s: accepted %v, which cannot be stored", text, v)
			case !ok && errs.Err() == nil && !o.Get("x").IsNull():
				t.Fatalf("%s: refused without a problem", text)
			}
		}
	})
}
