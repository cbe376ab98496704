package datasets

import (
	"encoding/json"
	"math"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/evalobs/evalapi/shared/store"
)

// The hand-written page encoder writes what encoding/json writes (SetEscapeHTML(false)).
func TestRowEncodingMatchesEncodingJSON(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	texts := []string{"", "plain", "q\"b\\s", "<a&b>", "ctl\x00\x01\x1f\x7f\b\f\n\r\t", "é✓日本", "\u2028\u2029", "bad\xff\xfeutf8", strings.Repeat("x", 300)}
	str := func() string { return texts[r.Intn(len(texts))] }
	value := func() any {
		switch r.Intn(7) {
		case 0:
			return nil
		case 1:
			return str()
		case 2:
			return r.Int63() - r.Int63()
		case 3:
			return r.NormFloat64() * math.Pow(10, float64(r.Intn(60)-30))
		case 4:
			return []float64{1e-7, 1e21, 1e20, 123456789e-15, 5e-324, 0.1}[r.Intn(6)]
		case 5:
			return map[string]any{str(): str(), str() + "k": int64(3), "z": nil, "a": 2.5}
		}
		return true
	}
	// A page encodes each user and each recent time once, and copies a value's bytes from
	// "values" to "values_dict": users, times and value lists repeat across rows here, with
	// equal instants in other locations and dicts that are not the values' slice.
	users := []*userInfo{nil, {ID: "u1", Email: "a@b.c", FirstName: str(), LastName: str()},
		{ID: "u2", Email: "<x>@y", FirstName: str(), LastName: str()}}
	at := time.Unix(r.Int63n(4e9), r.Int63n(1e9))
	times := []time.Time{at.UTC(), at.In(time.FixedZone("", -3600)), at.In(time.FixedZone("", 3600)), at.Add(time.Nanosecond).UTC()}
	when := func() time.Time {
		if r.Intn(3) == 0 {
			return time.Unix(r.Int63n(4e9), r.Int63n(1e9)).UTC()
		}
		return times[r.Intn(len(times))]
	}
	d := store.Dataset{ColumnNames: []string{"in<put>", "out\"put", "m"}}
	p := newRowPage(d, 0, 10, maxPageBytes)
	defer p.release()
	for i := range 500 {
		row := rowResponse{RowID: str(), Index: r.Int63n(1e6), Values: []any{value(), value(), value()},
			Metadata: rowMetadata{CreatedInVersion: int64(i), CreatedAt: when(),
				CreatedByUser: users[r.Intn(len(users))], UpdatedInVersion: 7,
				UpdatedAt: when(), UpdatedByUser: users[r.Intn(len(users))]}}
		row.ValuesDict = valuesDict{names: d.ColumnNames, values: row.Values}
		if i%5 == 0 { // a dict of its own: encoded on its own
			row.ValuesDict.values = []any{value(), value(), value()}
		}
		want, err := encode(row)
		if err != nil {
			t.Fatal(err)
		}
		got, err := p.appendRow(nil, row)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Fatalf("row %d:\n got  %s\n want %s", i, got, want)
		}
	}
}

// The page body is the envelope encoding/json writes with the rows inside.
func TestPageBodyMatchesEncodingJSON(t *testing.T) {
	for _, tc := range []struct {
		rows int64
		cut  bool
	}{{0, false}, {5, false}, {50, true}} {
		d := store.Dataset{ColumnNames: []string{"a", "b<"}, RowCount: tc.rows}
		p := newRowPage(d, 2, 10, maxPageBytes)
		for i := range min(tc.rows, 3) {
			row := rowResponse{RowID: "r", Index: i, Values: []any{"x", nil}, ValuesDict: valuesDict{names: d.ColumnNames, values: []any{"x", nil}}}
			b, err := p.appendRow(nil, row)
			if err != nil {
				t.Fatal(err)
			}
			if p.n > 0 {
				*p.buf = append(*p.buf, ',')
			}
			*p.buf = append(*p.buf, b...)
			p.n++
		}
		p.cut = tc.cut
		var rows []json.RawMessage
		if p.n > 0 {
			_ = json.Unmarshal(append(append([]byte("["), *p.buf...), ']'), &rows)
		}
		want := p.envelope()
		want.Rows = append([]json.RawMessage{}, rows...)
		wb, _ := encode(want)
		if got := p.body(nil); string(got) != string(wb) {
			t.Errorf("%+v:\n got  %s\n want %s", tc, got, wb)
		}
		p.release()
	}
}
