package datasets

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"

	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/validate"
)

// Reading rows and their values from request bodies. A value is a string, a number, an
// object of strings, numbers and nulls, or null (the original's DatasetRow value union);
// booleans count as 1 and 0, as Pydantic's lax integer does. A row is a list of values in
// column order, or an object of column name to value (absent columns are null).

const valueMessage = "a value must be a string, a number, an object of strings, numbers and nulls, or null"

// readValue reads one value.
func readValue(v validate.Value) (any, bool) {
	switch x := v.Raw().(type) {
	case nil, string:
		return x, true
	case bool:
		if x {
			return int64(1), true
		}
		return int64(0), true
	case json.Number:
		n, err := store.ParseNumber(string(x))
		if err != nil {
			v.Add(validate.FiniteNumber(v.Loc(), v.Raw()))
			return nil, false
		}
		if f, ok := n.(float64); ok && !validate.Storable(f) {
			v.Add(validate.NotStorable(v.Loc(), v.Raw()))
			return nil, false
		}
		return n, true
	case float64: // NaN or infinity, which Python's JSON reads
		if math.IsNaN(x) || math.IsInf(x, 0) {
			v.Add(validate.FiniteNumber(v.Loc(), v.Raw()))
			return nil, false
		}
		if !validate.Storable(x) {
			v.Add(validate.NotStorable(v.Loc(), v.Raw()))
			return nil, false
		}
		return x, true
	case map[string]any:
		o, _ := v.Dict()
		out := make(map[string]any, len(x))
		good := true
		for _, k := range o.Keys() {
			e := o.Get(k)
			if _, nested := e.Raw().(map[string]any); nested {
				e.Fail(valueMessage)
				good = false
				continue
			}
			val, ok := readValue(e)
			good = good && ok
			out[k] = val
		}
		return out, good
	}
	v.Fail(valueMessage)
	return nil, false
}

// readRows reads a list of rows. columns is nil when the column names failed validation:
// the rows' own shape is still checked, their fit to the columns is not.
func readRows(v validate.Value, columns []string, rules ...validate.Rule) ([][]any, bool) {
	items, ok := v.List(rules...)
	if !ok {
		return nil, false
	}
	rows := make([][]any, len(items))
	good := true
	for i, item := range items {
		row, ok := readRow(item, columns)
		rows[i], good = row, good && ok
	}
	return rows, good
}

func readRow(v validate.Value, columns []string) ([]any, bool) {
	switch v.Raw().(type) {
	case []any:
		items, _ := v.List()
		values := make([]any, len(items))
		good := true
		for i, e := range items {
			val, ok := readValue(e)
			values[i], good = val, good && ok
		}
		if columns != nil && len(values) != len(columns) {
			v.Fail(fmt.Sprintf("the row has %d values, one per column is %d", len(values), len(columns)))
			return nil, false
		}
		return values, good && fits(v, values)
	case map[string]any:
		o, _ := v.Dict()
		values := make([]any, len(columns))
		good := true
		for _, k := range o.Keys() {
			val, ok := readValue(o.Get(k))
			good = good && ok
			if columns == nil {
				continue
			}
			col := slices.Index(columns, k)
			if col < 0 {
				o.Get(k).Fail(fmt.Sprintf("the dataset has no column '%s'", k))
				good = false
				continue
			}
			values[col] = val
		}
		return values, good && fits(v, values)
	}
	v.Fail("a row must be a list of values in column order or an object of column names to values")
	return nil, false
}

// fits reports whether a row's values fit one stored row.
func fits(v validate.Value, values []any) bool {
	n, err := store.Normalize(values)
	if err == nil && store.DatasetRowSize(n.([]any)) <= store.MaxDatasetRowBytes {
		return true
	}
	v.Fail(fmt.Sprintf("the row is larger than %d bytes", store.MaxDatasetRowBytes))
	return false
}

// readColumnNames reads the column names of a new dataset: 1 to maxColumns distinct names.
func readColumnNames(v validate.Value) ([]string, bool) {
	items, ok := v.Required().List(validate.MinLen(1), validate.MaxLen(maxColumns))
	if !ok {
		return nil, false
	}
	names := make([]string, 0, len(items))
	good := true
	for _, item := range items {
		name, ok := item.String(validate.MinLen(1), validate.MaxLen(maxNameLen))
		if ok && slices.Contains(names, name) {
			item.Fail(fmt.Sprintf("column '%s' appears twice", name))
			ok = false
		}
		names, good = append(names, name), good && ok
	}
	return names, good
}
