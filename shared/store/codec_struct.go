package store

import (
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"
	"unsafe"
)

// structField is a field a struct's JSON names: its index path (through embedded structs,
// never through a pointer) and its decoder (from a value, or from a reader: codec_read.go).
type structField struct {
	name  string
	index []int
	dec   decodeFunc
	read  readFunc
	// typ and offset locate a promoted field from the struct's address (the index path holds
	// no pointer), without FieldByIndex's walk.
	typ    reflect.Type
	offset uintptr
}

// value is the field of v (an addressable struct; base its address): Field for a field of its
// own (NewAt looks the pointer type up, for most types in a sync.Map), else by offset.
func (f *structField) value(v reflect.Value, base unsafe.Pointer) reflect.Value {
	if len(f.index) == 1 {
		return v.Field(f.index[0])
	}
	return reflect.NewAt(f.typ, unsafe.Add(base, f.offset)).Elem()
}

// structPlan decodes an object into a struct.
type structPlan struct {
	typ    reflect.Type
	fields []structField // in index order
	// names is an open-addressing table of the fields' positions by exact name (-1: empty),
	// at least four slots a field: cheaper than a map's hash of every key of every item.
	names []int32
	shift uint // of nameHash, to the table's size
	// folded maps the other keys met to a position in fields, or -1: a map replaced whole
	// when a key is added (few keys, read on every item; a sync.Map's hashing cost more).
	folded atomic.Pointer[map[string]int]
	mu     sync.Mutex // serialises additions to folded
}

// maxFolded bounds the keys a plan remembers: an item's other attributes (key, entity, index
// keys) are few, and a record with many unknown keys is matched afresh each time.
const maxFolded = 64

// structDecoder is the decoder of the struct type t.
func structDecoder(t reflect.Type) (decodeFunc, error) {
	p, err := newStructPlan(t)
	if err != nil {
		return nil, err
	}
	for i := range p.fields {
		p.fields[i].dec = decoderOf(t.FieldByIndex(p.fields[i].index).Type)
	}
	return p.decode, nil
}

// newStructPlan plans t's fields as encoding/json finds them (typeFields, dominantField),
// their decoders left to the caller; errUnplanned for what it leaves to encoding/json whole:
// an embedded pointer, a ",string" field, the same struct embedded twice at one depth.
func newStructPlan(t reflect.Type) (*structPlan, error) {
	type cand struct {
		structField
		depth  int
		tagged bool
	}
	var cands []cand
	level := []struct {
		typ   reflect.Type
		index []int
	}{{t, nil}}
	visited := map[reflect.Type]bool{}
	for depth := 0; len(level) > 0; depth++ {
		next := level[:0:0]
		seen := map[reflect.Type]bool{}
		for _, l := range level {
			if visited[l.typ] {
				continue
			}
			visited[l.typ] = true
			for i := range l.typ.NumField() {
				sf := l.typ.Field(i)
				ft := sf.Type
				if sf.Anonymous {
					if ft.Kind() == reflect.Pointer {
						return nil, errUnplanned
					}
					if !sf.IsExported() && ft.Kind() != reflect.Struct {
						continue
					}
				} else if !sf.IsExported() {
					continue
				}
				tag := sf.Tag.Get("json")
				if tag == "-" {
					continue
				}
				name, opts, _ := strings.Cut(tag, ",")
				if !validTag(name) {
					name = ""
				}
				if slices.Contains(strings.Split(opts, ","), "string") {
					return nil, errUnplanned
				}
				index := append(slices.Clip(l.index), i)
				if name != "" || !sf.Anonymous || ft.Kind() != reflect.Struct {
					tagged := name != ""
					if name == "" {
						name = sf.Name
					}
					cands = append(cands, cand{structField{name: name, index: index}, depth, tagged})
					continue
				}
				if seen[ft] {
					return nil, errUnplanned
				}
				seen[ft] = true
				next = append(next, struct {
					typ   reflect.Type
					index []int
				}{ft, index})
			}
		}
		level = next
	}
	// Dominant fields: per name, the shallowest; among several there, the one tagged field,
	// or none.
	byName := map[string][]cand{}
	for _, c := range cands {
		byName[c.name] = append(byName[c.name], c)
	}
	p := &structPlan{typ: t}
	for _, c := range cands {
		group := byName[c.name]
		minDepth := slices.MinFunc(group, func(a, b cand) int { return a.depth - b.depth }).depth
		var top []cand
		for _, g := range group {
			if g.depth == minDepth {
				top = append(top, g)
			}
		}
		if len(top) > 1 {
			var tagged []cand
			for _, g := range top {
				if g.tagged {
					tagged = append(tagged, g)
				}
			}
			if len(tagged) != 1 {
				continue
			}
			top = tagged
		}
		if !slices.Equal(top[0].index, c.index) {
			continue
		}
		p.fields = append(p.fields, c.structField)
	}
	slices.SortFunc(p.fields, func(a, b structField) int { return slices.Compare(a.index, b.index) })
	for i := range p.fields {
		f := &p.fields[i]
		ft := t
		for _, x := range f.index {
			sf := ft.Field(x)
			f.offset += sf.Offset
			ft = sf.Type
		}
		f.typ = ft
	}
	bits := uint(3)
	for 1<<bits < 4*len(p.fields) {
		bits++
	}
	p.names, p.shift = make([]int32, 1<<bits), 64-bits
	for i := range p.names {
		p.names[i] = -1
	}
	mask := len(p.names) - 1
	for i, f := range p.fields {
		h := int(nameHash(f.name) >> p.shift)
		for p.names[h] >= 0 {
			h = (h + 1) & mask
		}
		p.names[h] = int32(i)
	}
	return p, nil
}

// nameHash mixes a name's length and three of its bytes: the names of one record differ there.
func nameHash(s string) uint64 {
	if s == "" {
		return 0
	}
	h := uint64(len(s))<<24 | uint64(s[0])<<16 | uint64(s[len(s)/2])<<8 | uint64(s[len(s)-1])
	return h * 0x9E3779B97F4A7C15
}

// exact is the position of the field named key, or -1.
func (p *structPlan) exact(key string) int {
	mask := len(p.names) - 1
	for h := int(nameHash(key) >> p.shift); ; h = (h + 1) & mask {
		at := p.names[h]
		if at < 0 || p.fields[at].name == key {
			return int(at)
		}
	}
}

// validTag is encoding/json's isValidTag.
func validTag(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
		case !unicode.IsLetter(c) && !unicode.IsDigit(c):
			return false
		}
	}
	return true
}

// field returns the position of the field key names: its exact name, else the first whose
// name equals it under case folding, as encoding/json matches (remembered per key).
func (p *structPlan) field(key string) int {
	if i := p.exact(key); i >= 0 {
		return i
	}
	if m := p.folded.Load(); m != nil {
		if i, ok := (*m)[key]; ok {
			return i
		}
	}
	at := -1
	for i, f := range p.fields {
		if strings.EqualFold(f.name, key) {
			at = i
			break
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	old := p.folded.Load()
	if old == nil || len(*old) < maxFolded {
		m := make(map[string]int, 1+len(ptrMap(old)))
		for k, v := range ptrMap(old) {
			m[k] = v
		}
		m[key] = at
		p.folded.Store(&m)
	}
	return at
}

func (p *structPlan) decode(x any, v reflect.Value) error {
	if x == nil {
		return nil
	}
	m, ok := asObject(x)
	if !ok {
		return typeError("non-object", x, p.typ)
	}
	base := v.Addr().UnsafePointer()
	for k, e := range m {
		i := p.field(k)
		if i < 0 {
			continue
		}
		f := &p.fields[i]
		if err := f.dec(e, f.value(v, base)); err != nil {
			return err
		}
	}
	return nil
}

func ptrMap(m *map[string]int) map[string]int {
	if m == nil {
		return nil
	}
	return *m
}
