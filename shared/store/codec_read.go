package store

import (
	"reflect"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// The typed decoder on a table's stored form: the same plan per type as Unmarshal's
// (codec.go), reading each value from a ValueReader instead of from the item's map, so an
// item is never built. Every case answers as Unmarshal on the item the reader holds; what a
// case does not take (a value of another kind, a type the plans leave to encoding/json) is
// read whole with Value and handed to Unmarshal's own decoder for that type, so errors and
// the rare paths are Unmarshal's. TestStoredDecodeMatchesUnmarshal holds the two equal.

// ValueKind is the kind of a value of the vocabulary.
type ValueKind uint8

const (
	KindNull ValueKind = iota
	KindBool
	KindString
	KindInt   // int64
	KindFloat // float64
	KindList
	KindMap
)

// ValueReader reads the values of one stored item in the order the table holds them, without
// building them. Kind tells the next value's kind; the method of that kind reads it (a null is
// passed with Skip). A list's or map's Len enters it: its elements follow, each of a map's
// preceded by its Name. Strings returned are the caller's to keep.
type ValueReader interface {
	Kind() ValueKind
	Bool() bool
	Int() int64
	Float() float64
	Str() string
	Len() int
	Name() string
	// Value reads the next value whole, as the item's map holds it.
	Value() any
	// Skip passes the next value.
	Skip()
}

// readFunc fills v (addressable) from the next value of r.
type readFunc func(r ValueReader, v reflect.Value) error

var readers sync.Map // reflect.Type -> readFunc

// readerOf returns the reader of t, building it once (recursive types as decoderOf).
func readerOf(t reflect.Type) readFunc {
	if f, ok := readers.Load(t); ok {
		return f.(readFunc)
	}
	var (
		wg sync.WaitGroup
		fn readFunc
	)
	wg.Add(1)
	f, loaded := readers.LoadOrStore(t, readFunc(func(r ValueReader, v reflect.Value) error {
		wg.Wait()
		return fn(r, v)
	}))
	if loaded {
		return f.(readFunc)
	}
	fn = newReader(t)
	wg.Done()
	readers.Store(t, fn)
	return fn
}

// whole is the reader of what only the map path knows: the value read whole, decoded by dec.
func whole(dec decodeFunc) readFunc {
	return func(r ValueReader, v reflect.Value) error { return dec(r.Value(), v) }
}

// newReader mirrors newDecoder case for case.
func newReader(t reflect.Type) readFunc {
	dec := decoderOf(t)
	switch t {
	case timeType:
		return readTime
	case rawType, fixedType, contentType:
		return whole(dec) // built from the value anyway
	}
	if t.Kind() != reflect.Pointer && (reflect.PointerTo(t).Implements(jsonUnmType) || reflect.PointerTo(t).Implements(textUnmType)) {
		return whole(dec)
	}
	switch t.Kind() {
	case reflect.String:
		return readString
	case reflect.Bool:
		return readBool
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return readInt
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return readUint
	case reflect.Float64:
		return readFloat
	case reflect.Interface:
		if t == anyType {
			return readAny
		}
	case reflect.Pointer:
		if e := t.Elem(); e == fixedType || e == contentType || !t.Implements(jsonUnmType) && !t.Implements(textUnmType) {
			return pointerReader(t)
		}
	case reflect.Slice:
		if t.Elem().Kind() != reflect.Uint8 {
			return sliceReader(t, dec)
		}
	case reflect.Map:
		if t.Key().Kind() == reflect.String && !reflect.PointerTo(t.Key()).Implements(textUnmType) {
			return mapReader(t, dec)
		}
	case reflect.Struct:
		if p, err := newStructPlan(t); err == nil {
			for i := range p.fields {
				ft := t.FieldByIndex(p.fields[i].index).Type
				p.fields[i].dec, p.fields[i].read = decoderOf(ft), readerOf(ft)
			}
			return p.read
		}
	}
	return whole(dec)
}

func readString(r ValueReader, v reflect.Value) error {
	switch r.Kind() {
	case KindNull:
		r.Skip()
		return nil
	case KindString:
		v.SetString(validUTF8(r.Str()))
		return nil
	}
	return decodeString(r.Value(), v)
}

func readBool(r ValueReader, v reflect.Value) error {
	switch r.Kind() {
	case KindNull:
		r.Skip()
		return nil
	case KindBool:
		v.SetBool(r.Bool())
		return nil
	}
	return decodeBool(r.Value(), v)
}

func readInt(r ValueReader, v reflect.Value) error {
	switch r.Kind() {
	case KindNull:
		r.Skip()
		return nil
	case KindInt:
		n := r.Int()
		if v.OverflowInt(n) {
			return typeError("number", n, v.Type())
		}
		v.SetInt(n)
		return nil
	}
	return decodeInt(r.Value(), v)
}

func readUint(r ValueReader, v reflect.Value) error {
	switch r.Kind() {
	case KindNull:
		r.Skip()
		return nil
	case KindInt:
		n := r.Int()
		if n < 0 || v.OverflowUint(uint64(n)) {
			return typeError("number", n, v.Type())
		}
		v.SetUint(uint64(n))
		return nil
	}
	return decodeUint(r.Value(), v)
}

func readFloat(r ValueReader, v reflect.Value) error {
	switch r.Kind() {
	case KindNull:
		r.Skip()
		return nil
	case KindInt:
		v.SetFloat(float64(r.Int()))
		return nil
	case KindFloat:
		v.SetFloat(r.Float())
		return nil
	}
	return decodeFloat(r.Value(), v)
}

// readAny is decodeAny: the value as encoding/json returns it in an interface.
func readAny(r ValueReader, v reflect.Value) error {
	if r.Kind() == KindNull {
		r.Skip()
		v.SetZero()
		return nil
	}
	v.Set(reflect.ValueOf(readJSONValue(r)))
	return nil
}

// readJSONValue is asJSONValue(r.Value()) without the intermediate value.
func readJSONValue(r ValueReader) any {
	switch r.Kind() {
	case KindBool:
		return r.Bool()
	case KindString:
		return validUTF8(r.Str())
	case KindInt:
		return float64(r.Int())
	case KindFloat:
		return r.Float()
	case KindList:
		out := make([]any, r.Len())
		for i := range out {
			out[i] = readJSONValue(r)
		}
		return out
	case KindMap:
		n := r.Len()
		out := make(map[string]any, n)
		for range n {
			k := validUTF8(r.Name())
			out[k] = readJSONValue(r)
		}
		return out
	}
	r.Skip()
	return nil
}

func readTime(r ValueReader, v reflect.Value) error {
	switch r.Kind() {
	case KindNull:
		r.Skip()
		return nil
	case KindString:
		s := r.Str()
		if !utf8.ValidString(s) || strings.ContainsAny(s, "\"\\") {
			return decodeViaJSON(s, v)
		}
		return v.Addr().Interface().(*time.Time).UnmarshalText([]byte(s))
	}
	return decodeTime(r.Value(), v)
}

func pointerReader(t reflect.Type) readFunc {
	elem := t.Elem()
	read := readerOf(elem) // built before it is called (readerOf's indirection for a cycle)
	return func(r ValueReader, v reflect.Value) error {
		if r.Kind() == KindNull {
			r.Skip()
			v.SetZero()
			return nil
		}
		if v.IsNil() {
			v.Set(reflect.New(elem))
		}
		return read(r, v.Elem())
	}
}

func sliceReader(t reflect.Type, dec decodeFunc) readFunc {
	read := readerOf(t.Elem())
	return func(r ValueReader, v reflect.Value) error {
		switch r.Kind() {
		case KindNull:
			r.Skip()
			v.SetZero()
			return nil
		case KindList:
			n := r.Len()
			out := reflect.MakeSlice(t, n, n)
			for i := range n {
				if err := read(r, out.Index(i)); err != nil {
					return err
				}
			}
			v.Set(out)
			return nil
		}
		return dec(r.Value(), v)
	}
}

func mapReader(t reflect.Type, dec decodeFunc) readFunc {
	read := readerOf(t.Elem())
	return func(r ValueReader, v reflect.Value) error {
		switch r.Kind() {
		case KindNull:
			r.Skip()
			v.SetZero()
			return nil
		case KindMap:
			n := r.Len()
			if v.IsNil() {
				v.Set(reflect.MakeMapWithSize(t, n))
			}
			for range n {
				k := r.Name()
				ev := reflect.New(t.Elem()).Elem()
				if err := read(r, ev); err != nil {
					return err
				}
				v.SetMapIndex(reflect.ValueOf(validUTF8(k)).Convert(t.Key()), ev)
			}
			return nil
		}
		return dec(r.Value(), v)
	}
}

// read is decode on a reader.
func (p *structPlan) read(r ValueReader, v reflect.Value) error {
	switch r.Kind() {
	case KindNull:
		r.Skip()
		return nil
	case KindMap:
	default:
		return p.decode(r.Value(), v)
	}
	base := v.Addr().UnsafePointer()
	for range r.Len() {
		i := p.field(r.Name())
		if i < 0 {
			r.Skip()
			continue
		}
		f := &p.fields[i]
		if err := f.read(r, f.value(v, base)); err != nil {
			return err
		}
	}
	return nil
}
