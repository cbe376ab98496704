package projects

import (
	"slices"

	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/validate"
)

// readFilter reads one scorer filter (§2.9): a union discriminated by `name`. A missing tag is
// union_tag_not_found, an unknown one union_tag_invalid, both at the filter's loc; a problem
// inside a variant has the tag in its loc, as Pydantic reports it.
func readFilter(v validate.Value) (store.ScorerFilter, bool) {
	o, ok := v.Object()
	if !ok {
		return store.ScorerFilter{}, false
	}
	if !o.Has("name") {
		v.Add(validate.UnionTagNotFound(v.Loc(), v.Raw(), "name"))
		return store.ScorerFilter{}, false
	}
	tag := validate.PyStr(o.Get("name").Raw())
	if _, isString := o.Get("name").Raw().(string); !isString || !slices.Contains(filterNames, tag) {
		v.Add(validate.UnionTagInvalid(v.Loc(), v.Raw(), "name", tag, filterNames))
		return store.ScorerFilter{}, false
	}
	return validate.Tagged(v, tag, func(v validate.Value) (store.ScorerFilter, bool) { return readVariant(v, tag) })
}

// readVariant reads the fields of the filter kind tag.
func readVariant(v validate.Value, tag string) (store.ScorerFilter, bool) {
	o, ok := v.Object()
	if !ok {
		return store.ScorerFilter{}, false
	}
	f := store.ScorerFilter{Name: tag, CaseSensitive: true}
	switch tag {
	case store.FilterNodeName:
		f.Operator, _ = o.Get("operator").Required().Enum(nodeNameOperators...)
		f.Value, _ = readStrings(o.Get("value").Required())
		if o.Has("case_sensitive") {
			f.CaseSensitive, _ = o.Get("case_sensitive").Bool()
		}
	case store.FilterMetadata:
		f.Operator, _ = o.Get("operator").Required().Enum(metadataOperators...)
		f.Key, _ = o.Get("key").Required().String()
		f.Value, _ = readStrings(o.Get("value").Required())
	case store.FilterModality:
		f.Operator, _ = o.Get("operator").Required().Enum(modalityOperators...)
		f.Value, _ = readModalities(o.Get("value").Required())
	}
	return f, true
}

// readStrings reads a filter value: a string or a list of strings (Union[str, List[str]]).
func readStrings(v validate.Value) (store.FilterValue, bool) {
	if !v.Present() {
		return store.FilterValue{}, false
	}
	return validate.Union(v,
		validate.Member[store.FilterValue]{Name: "str", Read: func(v validate.Value) (store.FilterValue, bool) {
			s, ok := v.String()
			return store.FilterValue{Values: []string{s}}, ok
		}},
		validate.Member[store.FilterValue]{Name: "list[str]", Read: listOf(func(v validate.Value) (string, bool) { return v.String() })},
	)
}

// readModalities reads a modality filter's value: one modality or a list of them.
func readModalities(v validate.Value) (store.FilterValue, bool) {
	if !v.Present() {
		return store.FilterValue{}, false
	}
	modality := func(v validate.Value) (string, bool) { return v.Enum(modalities...) }
	return validate.Union(v,
		validate.Member[store.FilterValue]{Name: "str-enum[Modality]", Read: func(v validate.Value) (store.FilterValue, bool) {
			s, ok := modality(v)
			return store.FilterValue{Values: []string{s}}, ok
		}},
		validate.Member[store.FilterValue]{Name: "list[str-enum[Modality]]", Read: listOf(modality)},
	)
}

// listOf makes the list member of a string-or-list union.
func listOf(item func(validate.Value) (string, bool)) func(validate.Value) (store.FilterValue, bool) {
	return func(v validate.Value) (store.FilterValue, bool) {
		items, ok := v.List()
		if !ok {
			return store.FilterValue{}, false
		}
		out := store.FilterValue{Values: make([]string, 0, len(items)), List: true}
		for _, it := range items {
			s, _ := item(it)
			out.Values = append(out.Values, s)
		}
		return out, true
	}
}

// readSegmentFilter reads one segment filter (§2.9).
func readSegmentFilter(v validate.Value) (store.SegmentFilter, bool) {
	o, ok := v.Object()
	if !ok {
		return store.SegmentFilter{}, false
	}
	var sf store.SegmentFilter
	if fv := o.Get("filter"); fv.Present() && !fv.IsNull() {
		if f, ok := readFilter(fv); ok {
			sf.Filter = &f
		}
	}
	sf.SampleRate, _ = o.Get("sample_rate").Required().Float(validate.Ge(0), validate.Le(1), validate.StoreTinyAsZero())
	if o.Has("llm_scorers") {
		sf.LLMScorers, _ = o.Get("llm_scorers").Bool()
	}
	if o.Has("multimodal_scorers") {
		sf.MultimodalScorers, _ = o.Get("multimodal_scorers").Bool()
	}
	return sf, true
}
