package projects

import "github.com/evalobs/evalapi/shared/validate"

// Readers of optional (nullable) fields: nil when absent, null or invalid; an invalid value
// is recorded in the object's collector.

func optString(o validate.Obj, name string, rules ...validate.Rule) *string {
	s, ok := o.Get(name).Nullable().String(rules...)
	if !ok {
		return nil
	}
	return &s
}

func optEnum(o validate.Obj, name string, values ...string) *string {
	s, ok := o.Get(name).Nullable().Enum(values...)
	if !ok {
		return nil
	}
	return &s
}

func optUUID(o validate.Obj, name string) *string {
	s, ok := o.Get(name).Nullable().UUID(4)
	if !ok {
		return nil
	}
	return &s
}

func optInt(o validate.Obj, name string, rules ...validate.Rule) *int64 {
	n, ok := o.Get(name).Nullable().Int(rules...)
	if !ok {
		return nil
	}
	return &n
}

func optBool(o validate.Obj, name string) *bool {
	b, ok := o.Get(name).Nullable().Bool()
	if !ok {
		return nil
	}
	return &b
}

// boolDefault reads a nullable boolean whose default, when the field is absent, is def.
func boolDefault(o validate.Obj, name string, def bool) *bool {
	if !o.Has(name) {
		return &def
	}
	return optBool(o, name)
}

// optStrings reads a nullable list of strings; each item checked with each (when given).
func optStrings(o validate.Obj, name string, each func(validate.Value) (string, bool)) []string {
	items, ok := o.Get(name).Nullable().List()
	if !ok {
		return nil
	}
	if each == nil {
		each = func(v validate.Value) (string, bool) { return v.String() }
	}
	out := make([]string, 0, len(items))
	good := true
	for _, it := range items {
		s, ok := each(it)
		good = good && ok
		out = append(out, s)
	}
	if !good {
		return nil
	}
	return out
}

// enumItem checks a list item against values.
func enumItem(values ...string) func(validate.Value) (string, bool) {
	return func(v validate.Value) (string, bool) { return v.Enum(values...) }
}
