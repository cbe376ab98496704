package validate

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Pydantic reports an error inside a union with one more loc segment than the field has: the
// tag of a discriminated union ("node_name"), or the name of the member a smart union tried
// ("str", "list[str]"). Value has no such segment, so these helpers read the value
// again with a collector of their own and move every error it finds to the value's loc plus
// that segment.

// Member is one alternative of a smart union: the name Pydantic gives it in loc, and a reader
// that reports whether the value is of this member.
type Member[T any] struct {
	Name string
	Read func(v Value) (T, bool)
}

// Union reads v as the first member that takes it without a problem. When none does, every
// member's problems are recorded, in member order, as Pydantic's smart union reports them.
func Union[T any](v Value, members ...Member[T]) (T, bool) {
	var failed []Error
	for _, m := range members {
		out, errs := within(v, m.Name, m.Read)
		if errs == nil {
			return out, true
		}
		failed = append(failed, errs...)
	}
	for _, e := range failed {
		v.Add(e)
	}
	var zero T
	return zero, false
}

// Tagged reads v with read and records its problems under loc + tag, as a discriminated
// union reports errors of the variant the tag chose.
func Tagged[T any](v Value, tag string, read func(v Value) (T, bool)) (T, bool) {
	out, errs := within(v, tag, read)
	for _, e := range errs {
		v.Add(e)
	}
	return out, errs == nil
}

// within runs read on v's input and returns its problems re-rooted at v.Loc() + seg; nil when
// there were none.
func within[T any](v Value, seg string, read func(v Value) (T, bool)) (T, []Error) {
	// The input sits in a wrapper object so that JSON null stays a present value (a null body
	// would count as absent); the wrapper's two segments ["body", "v"] are cut off below.
	sub := New()
	root, _ := sub.Body(map[string]any{"v": v.Raw()}, true).Object()
	out, ok := read(root.Get("v"))
	if ok && sub.Len() == 0 {
		return out, nil
	}
	errs := make([]Error, len(sub.Detail))
	for i, e := range sub.Detail {
		e.Loc = At(At(v.Loc(), seg), e.Loc[2:]...)
		errs[i] = e
	}
	if len(errs) == 0 { // a reader that failed without saying why: never leave the caller silent
		errs = []Error{ValueError(At(v.Loc(), seg), v.Raw(), "invalid value")}
	}
	return out, errs
}

// PyStr renders a JSON value as Python's str() would, for the tag of union_tag_invalid.
func PyStr(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case nil:
		return "None"
	case bool:
		if x {
			return "True"
		}
		return "False"
	case json.Number:
		return x.String()
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = pyRepr(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case map[string]any:
		parts := make([]string, 0, len(x))
		for k, e := range x {
			parts = append(parts, pyRepr(k)+": "+pyRepr(e))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return fmt.Sprint(v)
}

func pyRepr(v any) string {
	if s, ok := v.(string); ok {
		return "'" + strings.ReplaceAll(s, "'", `\'`) + "'"
	}
	return PyStr(v)
}
