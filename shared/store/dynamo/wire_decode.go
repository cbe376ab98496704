package dynamo

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/evalobs/evalapi/shared/store"
)

// The outputs decode through wire forms whose attribute values are avMap: the SDK's types
// are interfaces encoding/json cannot fill.

// GetItem's and UpdateItem's answers are read by hand, in one pass (awscall hands them over
// without encoding/json's validation pass).

func (o *GetItemOutput) UnmarshalJSON(b []byte) error {
	return member(b, "Item", func(d *avDecoder) error {
		m, err := d.item()
		o.Item = m
		return err
	})
}

func (o *UpdateItemOutput) UnmarshalJSON(b []byte) error {
	return member(b, "Attributes", func(d *avDecoder) error {
		m, err := d.item()
		o.Attributes = m
		return err
	})
}

// A query page is read by hand, items straight into the store's vocabulary: through
// encoding/json, its own scan of the page cost as much as the items' decoding.
func (o *QueryOutput) UnmarshalJSON(b []byte) error {
	*o = QueryOutput{}
	d := avDecoder{b: b}
	var p queryPage
	err := p.read(&d, func() error {
		m, err := d.item()
		o.Items = append(o.Items, m)
		return err
	})
	if err != nil {
		return err
	}
	if o.Items == nil {
		o.Items = []store.Item{}
	}
	o.LastEvaluatedKey, o.Count = p.LastEvaluatedKey, p.Count
	return nil
}

// queryPage is what a query's answer holds besides its items.
type queryPage struct {
	LastEvaluatedKey map[string]types.AttributeValue
	Count            int32
}

// read reads a query's answer, calling item at each item.
func (p *queryPage) read(d *avDecoder, item func() error) error {
	return d.answer(func(name string) error {
		switch name {
		case "Items":
			return d.array(item)
		case "LastEvaluatedKey":
			raw, err := d.skip()
			if err != nil {
				return err
			}
			var k avMap
			if err := json.Unmarshal(raw, &k); err != nil {
				return err
			}
			p.LastEvaluatedKey = k
		case "Count":
			raw, err := d.skip()
			if err != nil {
				return err
			}
			n, err := strconv.ParseInt(string(raw), 10, 32)
			if err != nil {
				return fmt.Errorf("%w: query answer: Count %q", store.ErrInvalid, raw)
			}
			p.Count = int32(n)
		default:
			_, err := d.skip()
			return err
		}
		return nil
	})
}

func (o *BatchGetItemOutput) UnmarshalJSON(b []byte) error {
	var w struct {
		Responses       map[string][]wireItem
		UnprocessedKeys map[string]struct {
			Keys           []avMap
			ConsistentRead *bool
		}
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	o.Responses = make(map[string][]store.Item, len(w.Responses))
	for table, items := range w.Responses {
		l := make([]store.Item, len(items))
		for i, it := range items {
			l[i] = store.Item(it)
		}
		o.Responses[table] = l
	}
	if len(w.UnprocessedKeys) > 0 {
		o.UnprocessedKeys = make(map[string]types.KeysAndAttributes, len(w.UnprocessedKeys))
		for table, ka := range w.UnprocessedKeys {
			keys := make([]map[string]types.AttributeValue, len(ka.Keys))
			for i, k := range ka.Keys {
				keys[i] = k
			}
			o.UnprocessedKeys[table] = types.KeysAndAttributes{Keys: keys, ConsistentRead: ka.ConsistentRead}
		}
	}
	return nil
}

func (o *BatchWriteItemOutput) UnmarshalJSON(b []byte) error {
	var w struct {
		UnprocessedItems map[string][]struct {
			PutRequest    *struct{ Item avMap }
			DeleteRequest *struct{ Key avMap }
		}
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	if len(w.UnprocessedItems) == 0 {
		return nil
	}
	o.UnprocessedItems = make(map[string][]types.WriteRequest, len(w.UnprocessedItems))
	for table, reqs := range w.UnprocessedItems {
		l := make([]types.WriteRequest, 0, len(reqs))
		for _, r := range reqs {
			switch {
			case r.PutRequest != nil:
				l = append(l, types.WriteRequest{PutRequest: &types.PutRequest{Item: r.PutRequest.Item}})
			case r.DeleteRequest != nil:
				l = append(l, types.WriteRequest{DeleteRequest: &types.DeleteRequest{Key: r.DeleteRequest.Key}})
			}
		}
		o.UnprocessedItems[table] = l
	}
	return nil
}

// avMap is an item (or key) in its wire form.
type avMap map[string]types.AttributeValue

func (m *avMap) UnmarshalJSON(b []byte) error {
	var w map[string]*wireAV
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	if w == nil {
		*m = nil
		return nil
	}
	*m = fromWireMap(w)
	return nil
}

// wireAV is one attribute value on the wire: an object with one of these members.
type wireAV struct {
	S    *string
	N    *string
	B    []byte
	BOOL *bool
	NULL *bool
	M    map[string]*wireAV
	L    []*wireAV
	SS   []string
	NS   []string
	BS   [][]byte
}

func fromWireMap(w map[string]*wireAV) map[string]types.AttributeValue {
	out := make(map[string]types.AttributeValue, len(w))
	for k, v := range w {
		out[k] = fromWire(v)
	}
	return out
}

func fromWire(v *wireAV) types.AttributeValue {
	switch {
	case v == nil:
		return &types.AttributeValueMemberNULL{Value: true}
	case v.S != nil:
		return &types.AttributeValueMemberS{Value: *v.S}
	case v.N != nil:
		return &types.AttributeValueMemberN{Value: *v.N}
	case v.B != nil:
		return &types.AttributeValueMemberB{Value: v.B}
	case v.BOOL != nil:
		return &types.AttributeValueMemberBOOL{Value: *v.BOOL}
	case v.M != nil:
		return &types.AttributeValueMemberM{Value: fromWireMap(v.M)}
	case v.L != nil:
		l := make([]types.AttributeValue, len(v.L))
		for i, e := range v.L {
			l[i] = fromWire(e)
		}
		return &types.AttributeValueMemberL{Value: l}
	case v.SS != nil:
		return &types.AttributeValueMemberSS{Value: v.SS}
	case v.NS != nil:
		return &types.AttributeValueMemberNS{Value: v.NS}
	case v.BS != nil:
		return &types.AttributeValueMemberBS{Value: v.BS}
	}
	return &types.AttributeValueMemberNULL{Value: v.NULL != nil && *v.NULL}
}
