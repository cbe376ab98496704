package store

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/evalobs/evalapi/shared/fixed"
)

// unmarshalViaJSON is Unmarshal as it was before the typed decoder: the item written as JSON,
// read by encoding/json. The reference the typed decoder is held to.
func unmarshalViaJSON(it Item, v any) error {
	b, err := appendJSONObject(nil, it)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

// The record types the store reads with Unmarshal (and the ones they contain).
var codecRecordTypes = []any{
	BudgetLimit{}, JudgeBudget{}, DayUsage{}, Reservation{}, Dataset{}, DatasetColumn{}, SegmentRef{},
	DatasetRow{}, DatasetCollaborator{}, DatasetGrant{}, DatasetVersion{}, DatasetEdit{}, DatasetGroup{},
	EvalJob{}, JobPlan{}, PromptMessage{}, ExperimentJob{}, JobRow{}, RowOutcome{}, Experiment{},
	ExperimentDataset{}, ExperimentPrompt{}, ExperimentPlayground{}, ExperimentGroup{}, RunTag{}, Org{},
	User{}, UserAuth{}, APIKey{}, Group{}, GroupMember{}, Integration{}, IntegrationCollaborator{},
	LogSession{}, Project{}, LogStream{}, MetricSettings{}, SegmentFilter{}, ScorerFilter{}, RunInfo{},
	PromptTemplate{}, PromptTemplateVersion{}, Run{}, RunSummary{}, MetricStats{}, Scorer{}, ScorerDefaults{},
	ScorerVersion{}, ScorerConfig{}, RollUpConfig{}, ScorerVersionRecord{}, GeneratedScorerRecord{},
	RegisteredScorerRecord{}, FinetunedScorerRecord{}, Session{}, SessionState{}, SignalsConfig{},
	SignalsSchedule{}, SignalsRun{}, SignalsFinding{}, Span{}, MetricValue{}, Usage{}, Trace{},
}

// The typed decoder answers as encoding/json on the item's JSON: on random records of every
// type, on the same items with attributes swapped for values of other kinds (errors must
// agree, and values when there is none), and with keys in other cases.
func TestCodecMatchesJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 23))
	for _, rec := range codecRecordTypes {
		typ := reflect.TypeOf(rec)
		t.Run(typ.Name(), func(t *testing.T) {
			checked := 0
			for i := range 600 {
				it, ok := randomItem(rng, typ, i)
				if !ok {
					continue
				}
				compareDecoders(t, typ, it)
				checked++
			}
			if checked < 200 {
				t.Fatalf("only %d of 600 random %s marshalled", checked, typ)
			}
		})
	}
}

// randomItem is the item of a random record of type typ, the i-th of a series: every third
// with attributes swapped for values of other kinds, every third with keys in other cases;
// false for a random value a custom marshaller refuses.
func randomItem(rng *rand.Rand, typ reflect.Type, i int) (Item, bool) {
	v := reflect.New(typ)
	fillRandom(rng, v.Elem(), 0)
	it, err := Marshal(v.Interface())
	if err != nil {
		return nil, false
	}
	switch {
	case i%3 == 1:
		mutateItem(rng, it)
	case i%3 == 2:
		recaseItem(rng, it)
	}
	return it, true
}

func compareDecoders(t *testing.T, typ reflect.Type, it Item) {
	t.Helper()
	want, got := reflect.New(typ), reflect.New(typ)
	errWant := unmarshalViaJSON(it, want.Interface())
	errGot := Unmarshal(it, got.Interface())
	if (errWant == nil) != (errGot == nil) {
		t.Fatalf("item %v:\nencoding/json error: %v\ntyped error: %v", it, errWant, errGot)
	}
	if errWant == nil && !reflect.DeepEqual(want.Interface(), got.Interface()) {
		t.Fatalf("item %v:\nencoding/json: %+v\ntyped:         %+v", it, want.Elem(), got.Elem())
	}
}

// A failing typed decode is reported, and the reference catches a wrong value: the test's own
// check, on a hand-made mismatch.
func TestCodecComparisonCanFail(t *testing.T) {
	var a, b User
	it := Item{"id": "u1", "email": "x@y"}
	if err := Unmarshal(it, &a); err != nil {
		t.Fatal(err)
	}
	if err := unmarshalViaJSON(Item{"id": "u2"}, &b); err != nil {
		t.Fatal(err)
	}
	if reflect.DeepEqual(a, b) {
		t.Fatal("different items decoded equal")
	}
	if err := Unmarshal(Item{"id": int64(3)}, &a); err == nil {
		t.Fatal("a number into a string field decoded without error")
	}
}

var randomStrings = []string{"", "a", "héllo", "line\nbreak", `quote"back\slash`, "\u2028", "\xff\xfe bad",
	"2026-11-25T01:02:03.123456Z", "2026-11-25T01:02:03+02:00", "not a time", "0", "1.5", "<html>&"}

// randomContents are valid JSON texts, as Content holds them.
var randomContents = []string{`"text"`, `null`, `0`, `-1.5e-7`, `[1,"a",{"b":true}]`, `{"role":"user","content":"h\u00e9\"llo"}`, `{}`, `[]`}

// randomFixed is a decimal at the edges fixed.Value and the item's numbers meet: integers up
// to int64's, nine decimals, floats' shortest texts.
func randomFixed(rng *rand.Rand) fixed.Value {
	switch rng.IntN(6) {
	case 0:
		return fixed.Value{}
	case 1:
		return fixed.FromInt([]int64{1, -1, rng.Int64(), -rng.Int64(), math.MaxInt64, math.MinInt64, 1 << 53}[rng.IntN(7)])
	case 2:
		return fixed.FromMillionths(rng.Int64N(2e12) - 1e12)
	case 3:
		v, _ := fixed.Parse([]string{"0.000000001", "-123456789.123456789", "99999999999.999999999", "0.1", "1e-9", "12.5"}[rng.IntN(6)])
		return v
	default:
		v, err := fixed.FromFloat((rng.Float64() - 0.5) * math.Pow(10, float64(rng.IntN(30)-10)))
		if err != nil {
			return fixed.Value{}
		}
		return v
	}
}

// fillRandom sets v to a random value of its type: strings from a list of awkward ones,
// numbers at their edges, times, nil and non-nil pointers, maps and slices of 0 to 3.
func fillRandom(rng *rand.Rand, v reflect.Value, depth int) {
	if depth > 6 {
		return
	}
	switch v.Type() {
	case reflect.TypeFor[fixed.Value]():
		v.Set(reflect.ValueOf(randomFixed(rng)))
		return
	case reflect.TypeFor[Content]():
		if rng.IntN(4) > 0 {
			v.Set(reflect.ValueOf(Content(randomContents[rng.IntN(len(randomContents))])))
		}
		return
	}
	if v.Type() == reflect.TypeFor[time.Time]() {
		if rng.IntN(4) > 0 {
			v.Set(reflect.ValueOf(time.Unix(rng.Int64N(4e9), rng.Int64N(1e9)).UTC()))
		}
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(randomStrings[rng.IntN(len(randomStrings))])
	case reflect.Bool:
		v.SetBool(rng.IntN(2) == 1)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n := []int64{0, 1, -1, rng.Int64(), -rng.Int64(), math.MaxInt32, 1 << 53, 1<<53 + 1}[rng.IntN(8)]
		if !v.OverflowInt(n) {
			v.SetInt(n)
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n := []uint64{0, 1, rng.Uint64() >> 1, 255}[rng.IntN(4)]
		if !v.OverflowUint(n) {
			v.SetUint(n)
		}
	case reflect.Float32, reflect.Float64:
		v.SetFloat([]float64{0, 1, -2.5, 0.1, 1e21, 1e-7, rng.Float64(), float64(1<<53 + 1)}[rng.IntN(8)])
	case reflect.Pointer:
		if rng.IntN(3) > 0 {
			p := reflect.New(v.Type().Elem())
			fillRandom(rng, p.Elem(), depth+1)
			v.Set(p)
		}
	case reflect.Slice:
		if rng.IntN(4) == 0 {
			return // nil
		}
		n := rng.IntN(4)
		s := reflect.MakeSlice(v.Type(), n, n)
		for i := range n {
			fillRandom(rng, s.Index(i), depth+1)
		}
		v.Set(s)
	case reflect.Map:
		if rng.IntN(4) == 0 {
			return
		}
		m := reflect.MakeMap(v.Type())
		for range rng.IntN(4) {
			k := reflect.New(v.Type().Key()).Elem()
			fillRandom(rng, k, depth+1)
			e := reflect.New(v.Type().Elem()).Elem()
			fillRandom(rng, e, depth+1)
			m.SetMapIndex(k, e)
		}
		v.Set(m)
	case reflect.Interface:
		if x := randomAny(rng, depth); v.NumMethod() == 0 && x != nil {
			v.Set(reflect.ValueOf(x))
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fillRandom(rng, v.Field(i), depth+1)
			}
		}
	}
}

func randomAny(rng *rand.Rand, depth int) any {
	switch k := rng.IntN(8); {
	case k == 0 || depth > 4:
		return nil
	case k == 1:
		return randomStrings[rng.IntN(len(randomStrings))]
	case k == 2:
		return rng.IntN(2) == 1
	case k == 3:
		return []float64{0, 3, 1.25, 1 << 60, -7}[rng.IntN(5)]
	case k == 4:
		return rng.Int64N(1 << 62)
	case k == 5:
		return []any{randomAny(rng, depth+1), randomAny(rng, depth+1)}
	default:
		return map[string]any{"k": randomAny(rng, depth+1), "K2": randomAny(rng, depth+1)}
	}
}

// mutateItem swaps one or two attributes for values of the vocabulary of any kind.
func mutateItem(rng *rand.Rand, it Item) {
	if len(it) == 0 {
		return
	}
	keys := make([]string, 0, len(it))
	for k := range it {
		keys = append(keys, k)
	}
	for range 1 + rng.IntN(4) {
		k := keys[rng.IntN(len(keys))]
		switch rng.IntN(7) {
		case 0:
			it[k] = nil
		case 1:
			it[k] = "x"
		case 2:
			it[k] = int64(-5)
		case 3:
			it[k] = 2.5
		case 4:
			it[k] = []any{"a", int64(1)}
		case 5:
			it[k] = map[string]any{"a": int64(1)}
		default:
			it[k] = true
		}
	}
}

// recaseItem renames attributes to other cases (encoding/json matches names case-insensitively)
// and adds one no field has.
func recaseItem(rng *rand.Rand, it Item) {
	for k, v := range it {
		if rng.IntN(3) == 0 {
			delete(it, k)
			it[strings.ToUpper(k)] = v
		}
	}
	it[fmt.Sprintf("Unknown%d", rng.IntN(3))] = "x"
}
