package dynamo

import (
	"context"
	"fmt"
	"math"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/evalobs/evalapi/shared/store"
)

// The adapter as a store.RecordReader: an item read by GetItem or Query is kept as the flat
// run of its values (tokens), read in one pass over DynamoDB's JSON, and a record is decoded
// from them by the typed plans of shared/store, with no map built.

var _ store.RecordReader = (*Table)(nil)

// GetStored is Get, the item shown as its values.
func (t *Table) GetStored(ctx context.Context, key store.Key, consistent bool) (store.StoredItem, error) {
	k, err := keyAV(key)
	if err != nil {
		return store.StoredItem{}, fmt.Errorf("dynamo: get: %w", err)
	}
	var out storedGetOutput
	in := &GetItemInput{TableName: aws.String(t.name), Key: k, ConsistentRead: aws.Bool(consistent)}
	if err := t.api.Call(ctx, "GetItem", in, &out); err != nil {
		return store.StoredItem{}, mapErr("get "+key.String(), err)
	}
	if out.r == nil {
		return store.StoredItem{}, fmt.Errorf("dynamo: get %s: %w", key, store.ErrNotFound)
	}
	return store.StoredFrom(out.r), nil
}

// BatchGetStored is BatchGet; its items are built as maps (a batch's retries of unprocessed
// keys are BatchGet's).
func (t *Table) BatchGetStored(ctx context.Context, keys []store.Key, consistent bool) ([]store.StoredItem, error) {
	items, err := t.BatchGet(ctx, keys, consistent)
	if err != nil {
		return nil, err
	}
	out := make([]store.StoredItem, len(items))
	for i, it := range items {
		out[i] = store.StoredOf(it)
	}
	return out, nil
}

// QueryStored is Query, the items shown as their values: the same pages and cursors.
func (t *Table) QueryStored(ctx context.Context, q store.Query) (store.StoredPage, error) {
	in, err := t.queryInput(q)
	if err != nil {
		return store.StoredPage{}, fmt.Errorf("dynamo: query %s %q: %w", indexLabel(q.Index), q.PK, err)
	}
	var out storedQueryOutput
	if err := t.api.Call(ctx, "Query", in, &out); err != nil {
		return store.StoredPage{}, mapErr(fmt.Sprintf("query %s %q", indexLabel(q.Index), q.PK), err)
	}
	next, err := toCursor(out.page.LastEvaluatedKey)
	if err != nil {
		return store.StoredPage{}, fmt.Errorf("dynamo: query %q: %w", q.PK, err)
	}
	if out.items == nil {
		out.items = []store.StoredItem{}
	}
	return store.StoredPage{Items: out.items, Next: next}, nil
}

// storedGetOutput is GetItem's output with the item as tokens.
type storedGetOutput struct{ r *tokReader }

func (o *storedGetOutput) UnmarshalJSON(b []byte) error {
	return member(b, "Item", func(d *avDecoder) error {
		r, err := d.tokens()
		o.r = r
		return err
	})
}

// storedQueryOutput is Query's output with the items as tokens.
type storedQueryOutput struct {
	page  queryPage
	items []store.StoredItem
}

func (o *storedQueryOutput) UnmarshalJSON(b []byte) error {
	d := avDecoder{b: b}
	return o.page.read(&d, func() error {
		r, err := d.tokens()
		if err == nil {
			o.items = append(o.items, store.StoredFrom(r))
		}
		return err
	})
}

// tok is one value of an item, or a member's name (kindName). A list's or map's token holds
// its length and the index after its last element's tokens.
type tok struct {
	kind store.ValueKind
	n    int32  // a list's or map's length
	end  int32  // a list's or map's: the index after its elements
	u    uint64 // an int64's or a float64's bits, a bool's 0 or 1
	s    string
}

const kindName store.ValueKind = 255

// tokReader is store.ItemReader over an item's tokens.
type tokReader struct {
	t   []tok
	at  int
	key store.Key
}

func (r *tokReader) Key() store.Key { return r.key }
func (r *tokReader) Rewind()        { r.at = 0 }

func (r *tokReader) Kind() store.ValueKind { return r.t[r.at].kind }

func (r *tokReader) Bool() bool     { r.at++; return r.t[r.at-1].u != 0 }
func (r *tokReader) Int() int64     { r.at++; return int64(r.t[r.at-1].u) }
func (r *tokReader) Float() float64 { r.at++; return math.Float64frombits(r.t[r.at-1].u) }
func (r *tokReader) Str() string    { r.at++; return r.t[r.at-1].s }
func (r *tokReader) Name() string   { r.at++; return r.t[r.at-1].s }
func (r *tokReader) Len() int       { r.at++; return int(r.t[r.at-1].n) }

func (r *tokReader) Skip() {
	switch r.t[r.at].kind {
	case store.KindList, store.KindMap:
		r.at = int(r.t[r.at].end)
	default:
		r.at++
	}
}

// Value reads the next value whole, as the item's map holds it (wireItem's values).
func (r *tokReader) Value() any {
	t := r.t[r.at]
	r.at++
	switch t.kind {
	case store.KindBool:
		return t.u != 0
	case store.KindString:
		return t.s
	case store.KindInt:
		return int64(t.u)
	case store.KindFloat:
		return math.Float64frombits(t.u)
	case store.KindList:
		l := make([]any, t.n)
		for i := range l {
			l[i] = r.Value()
		}
		return l
	case store.KindMap:
		m := make(map[string]any, t.n)
		for range int(t.n) {
			k := r.Name()
			m[k] = r.Value()
		}
		return m
	}
	return nil
}

// tokens reads an item (a map of attribute values) into a reader of its tokens.
func (d *avDecoder) tokens() (*tokReader, error) {
	r := &tokReader{t: make([]tok, 0, 32)}
	if err := d.tokMap(r, true); err != nil {
		return nil, err
	}
	return r, nil
}

// tokMap reads a map of attribute values; top says it is the item, whose key it notes.
func (d *avDecoder) tokMap(r *tokReader, top bool) error {
	at := len(r.t)
	r.t = append(r.t, tok{kind: store.KindMap})
	n := 0
	err := d.object(func(name string) error {
		n++
		r.t = append(r.t, tok{kind: kindName, s: name})
		if err := d.tokValue(r); err != nil {
			return fmt.Errorf("attribute %q: %w", name, err)
		}
		if v := r.t[len(r.t)-1]; top && v.kind == store.KindString {
			switch name {
			case store.AttrPK:
				r.key.PK = v.s
			case store.AttrSK:
				r.key.SK = v.s
			}
		}
		return nil
	})
	r.t[at].n, r.t[at].end = int32(n), int32(len(r.t))
	return err
}

// tokValue reads one attribute value ({"S":"x"}, ...) as value does, into tokens.
func (d *avDecoder) tokValue(r *tokReader) error {
	if err := d.consume('{'); err != nil {
		return err
	}
	typ, err := d.str()
	if err != nil {
		return err
	}
	if err := d.consume(':'); err != nil {
		return err
	}
	switch typ {
	case "S":
		var s string
		s, err = d.str()
		r.t = append(r.t, tok{kind: store.KindString, s: s})
	case "N":
		err = d.tokNumber(r)
	case "BOOL":
		var b bool
		b, err = d.boolean()
		t := tok{kind: store.KindBool}
		if b {
			t.u = 1
		}
		r.t = append(r.t, t)
	case "NULL":
		_, err = d.boolean()
		r.t = append(r.t, tok{kind: store.KindNull})
	case "M":
		err = d.tokMap(r, false)
	case "L", "SS", "NS":
		at := len(r.t)
		r.t = append(r.t, tok{kind: store.KindList})
		n := 0
		err = d.array(func() error {
			n++
			switch typ {
			case "L":
				return d.tokValue(r)
			case "NS":
				return d.tokNumber(r)
			}
			s, err := d.str()
			r.t = append(r.t, tok{kind: store.KindString, s: s})
			return err
		})
		r.t[at].n, r.t[at].end = int32(n), int32(len(r.t))
	default:
		return fmt.Errorf("%w: unsupported attribute type %q", store.ErrInvalid, typ)
	}
	if err != nil {
		return err
	}
	return d.consume('}')
}

// tokNumber reads a number (a JSON string) as store.ParseNumber reads it.
func (d *avDecoder) tokNumber(r *tokReader) error {
	s, err := d.str()
	if err != nil {
		return err
	}
	v, err := store.ParseNumber(s)
	if err != nil {
		return err
	}
	switch x := v.(type) {
	case int64:
		r.t = append(r.t, tok{kind: store.KindInt, u: uint64(x)})
	case float64:
		r.t = append(r.t, tok{kind: store.KindFloat, u: math.Float64bits(x)})
	default:
		return fmt.Errorf("%w: number %q", store.ErrInvalid, s)
	}
	return nil
}

var _ store.ItemReader = (*tokReader)(nil)
