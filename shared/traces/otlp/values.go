package otlp

import (
	"encoding/base64"
	"encoding/json"
	"strconv"
	"strings"
)

// attrs indexes a span's attributes by key (the last of a repeated key wins).
type attrs map[string]Value

func index(kvs []KeyValue) attrs {
	a := make(attrs, len(kvs))
	for _, kv := range kvs {
		a[kv.Key] = kv.Value
	}
	return a
}

// str is the attribute as a string ("" when absent or not a scalar).
func (a attrs) str(key string) (string, bool) {
	v, ok := a[key]
	if !ok || v.Kind == KindArray || v.Kind == KindMap || v.Kind == KindEmpty {
		return "", false
	}
	return v.Text(), true
}

func (a attrs) int(key string) (int64, bool) {
	v, ok := a[key]
	switch {
	case !ok:
		return 0, false
	case v.Kind == KindInt:
		return v.Int, true
	case v.Kind == KindDouble:
		return int64(v.Double), true
	case v.Kind == KindString:
		n, err := strconv.ParseInt(v.Str, 10, 64)
		return n, err == nil
	}
	return 0, false
}

func (a attrs) float(key string) (float64, bool) {
	v, ok := a[key]
	switch {
	case !ok:
		return 0, false
	case v.Kind == KindDouble:
		return v.Double, true
	case v.Kind == KindInt:
		return float64(v.Int), true
	case v.Kind == KindString:
		f, err := strconv.ParseFloat(v.Str, 64)
		return f, err == nil
	}
	return 0, false
}

// Text is the value as a string: scalars as written, arrays and maps as JSON.
func (v Value) Text() string {
	switch v.Kind {
	case KindString:
		return v.Str
	case KindBool:
		return strconv.FormatBool(v.Bool)
	case KindInt:
		return strconv.FormatInt(v.Int, 10)
	case KindDouble:
		return strconv.FormatFloat(v.Double, 'g', -1, 64)
	case KindBytes:
		return base64.StdEncoding.EncodeToString(v.Bytes)
	case KindArray, KindMap:
		b, _ := json.Marshal(v.Any())
		return string(b)
	}
	return ""
}

// Any is the value as JSON would hold it.
func (v Value) Any() any {
	switch v.Kind {
	case KindString:
		return v.Str
	case KindBool:
		return v.Bool
	case KindInt:
		return v.Int
	case KindDouble:
		return v.Double
	case KindBytes:
		return base64.StdEncoding.EncodeToString(v.Bytes)
	case KindArray:
		out := make([]any, len(v.Array))
		for i, x := range v.Array {
			out[i] = x.Any()
		}
		return out
	case KindMap:
		out := make(map[string]any, len(v.Map))
		for _, kv := range v.Map {
			out[kv.Key] = kv.Value.Any()
		}
		return out
	}
	return nil
}

// jsonAttr is an attribute that holds JSON (a string of JSON, or a structured value),
// decoded; nil when absent or not JSON.
func (a attrs) jsonAttr(key string) any {
	v, ok := a[key]
	if !ok {
		return nil
	}
	if v.Kind == KindString {
		var out any
		if json.Unmarshal([]byte(v.Str), &out) != nil {
			return nil
		}
		return out
	}
	return v.Any()
}

// indexed collects the flattened lists of the conventions (prefix.<i>.rest = value) into a
// list of maps rest -> value, in index order; used keys are marked.
func (a attrs) indexed(prefix string, used map[string]bool) []map[string]Value {
	var out []map[string]Value
	for k, v := range a {
		rest, ok := strings.CutPrefix(k, prefix+".")
		if !ok {
			continue
		}
		num, field, ok := strings.Cut(rest, ".")
		i, err := strconv.Atoi(num)
		if !ok || err != nil || i < 0 || i > 10_000 {
			continue
		}
		for len(out) <= i {
			out = append(out, map[string]Value{})
		}
		out[i][field] = v
		used[k] = true
	}
	// Drop the holes a sparse list leaves.
	dense := out[:0]
	for _, m := range out {
		if len(m) > 0 {
			dense = append(dense, m)
		}
	}
	return dense
}
