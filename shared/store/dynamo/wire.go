package dynamo

import (
	"encoding/base64"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/evalobs/evalapi/shared/store"
)

// The inputs and outputs of the DynamoDB operations the adapter makes, as they travel over
// DynamoDB's JSON protocol. They are the SDK's shapes (same names, the SDK's types package
// for the parts) but not its service package: importing that package alone puts 2 MB and its
// initialisers into every bootstrap. Only the fields the adapter uses are here.

// GetItemInput is GetItem's input.
type GetItemInput struct {
	TableName      *string
	Key            map[string]types.AttributeValue
	ConsistentRead *bool
}

// GetItemOutput is GetItem's output; Item is nil when there is no item. Items of outputs
// are decoded straight into the store's vocabulary (wireItem).
type GetItemOutput struct {
	Item store.Item
}

// PutItemInput is PutItem's input.
type PutItemInput struct {
	TableName                 *string
	Item                      map[string]types.AttributeValue
	ConditionExpression       *string
	ExpressionAttributeNames  map[string]string
	ExpressionAttributeValues map[string]types.AttributeValue
}

// DeleteItemInput is DeleteItem's input.
type DeleteItemInput struct {
	TableName                 *string
	Key                       map[string]types.AttributeValue
	ConditionExpression       *string
	ExpressionAttributeNames  map[string]string
	ExpressionAttributeValues map[string]types.AttributeValue
}

// UpdateItemInput is UpdateItem's input.
type UpdateItemInput struct {
	TableName                 *string
	Key                       map[string]types.AttributeValue
	UpdateExpression          *string
	ConditionExpression       *string
	ExpressionAttributeNames  map[string]string
	ExpressionAttributeValues map[string]types.AttributeValue
	ReturnValues              types.ReturnValue
}

// UpdateItemOutput is UpdateItem's output.
type UpdateItemOutput struct {
	Attributes store.Item
}

// QueryInput is Query's input.
type QueryInput struct {
	TableName                 *string
	IndexName                 *string
	KeyConditionExpression    *string
	ExpressionAttributeNames  map[string]string
	ExpressionAttributeValues map[string]types.AttributeValue
	ScanIndexForward          *bool
	ConsistentRead            *bool
	ExclusiveStartKey         map[string]types.AttributeValue
	Limit                     *int32
}

// QueryOutput is Query's output.
type QueryOutput struct {
	Items            []store.Item
	LastEvaluatedKey map[string]types.AttributeValue
	Count            int32
}

// BatchGetItemInput is BatchGetItem's input.
type BatchGetItemInput struct {
	RequestItems map[string]types.KeysAndAttributes
}

// BatchGetItemOutput is BatchGetItem's output.
type BatchGetItemOutput struct {
	Responses       map[string][]store.Item
	UnprocessedKeys map[string]types.KeysAndAttributes
}

// BatchWriteItemInput is BatchWriteItem's input.
type BatchWriteItemInput struct {
	RequestItems map[string][]types.WriteRequest
}

// BatchWriteItemOutput is BatchWriteItem's output.
type BatchWriteItemOutput struct {
	UnprocessedItems map[string][]types.WriteRequest
}

// TransactWriteItemsInput is TransactWriteItems' input.
type TransactWriteItemsInput struct {
	TransactItems []types.TransactWriteItem
	// ClientRequestToken makes the call idempotent for 10 minutes: a retry of a transaction
	// whose answer was lost is answered as the first was, not refused by its own conditions.
	ClientRequestToken *string
}

// The inputs encode by hand: encoding/json would write an attribute value's Go struct
// ({"Value":"x"}), not its wire form ({"S":"x"}).

func (in *GetItemInput) MarshalJSON() ([]byte, error) {
	var w jw
	w.open()
	w.str("TableName", in.TableName)
	w.avMap("Key", in.Key)
	w.boolean("ConsistentRead", in.ConsistentRead)
	return w.close()
}

func (in *PutItemInput) MarshalJSON() ([]byte, error) {
	var w jw
	w.open()
	w.action(in.TableName, "Item", in.Item, nil, in.ConditionExpression, in.ExpressionAttributeNames, in.ExpressionAttributeValues)
	return w.close()
}

func (in *DeleteItemInput) MarshalJSON() ([]byte, error) {
	var w jw
	w.open()
	w.action(in.TableName, "Key", in.Key, nil, in.ConditionExpression, in.ExpressionAttributeNames, in.ExpressionAttributeValues)
	return w.close()
}

func (in *UpdateItemInput) MarshalJSON() ([]byte, error) {
	var w jw
	w.open()
	w.action(in.TableName, "Key", in.Key, in.UpdateExpression, in.ConditionExpression, in.ExpressionAttributeNames,
		in.ExpressionAttributeValues)
	if in.ReturnValues != "" {
		rv := string(in.ReturnValues)
		w.str("ReturnValues", &rv)
	}
	return w.close()
}

func (in *QueryInput) MarshalJSON() ([]byte, error) {
	var w jw
	w.open()
	w.str("TableName", in.TableName)
	w.str("IndexName", in.IndexName)
	w.str("KeyConditionExpression", in.KeyConditionExpression)
	w.cond(nil, in.ExpressionAttributeNames, in.ExpressionAttributeValues)
	w.boolean("ScanIndexForward", in.ScanIndexForward)
	w.boolean("ConsistentRead", in.ConsistentRead)
	w.avMap("ExclusiveStartKey", in.ExclusiveStartKey)
	if in.Limit != nil {
		w.key("Limit")
		w.b = strconv.AppendInt(w.b, int64(*in.Limit), 10)
	}
	return w.close()
}

func (in *BatchGetItemInput) MarshalJSON() ([]byte, error) {
	var w jw
	w.open()
	w.key("RequestItems")
	w.b = append(w.b, '{')
	first := true
	for table, ka := range in.RequestItems {
		w.sep(&first)
		w.b = store.AppendJSONString(w.b, table)
		w.b = append(w.b, ':')
		w.keysAndAttributes(ka)
	}
	w.b = append(w.b, '}')
	return w.close()
}

func (in *BatchWriteItemInput) MarshalJSON() ([]byte, error) {
	var w jw
	w.open()
	w.key("RequestItems")
	w.b = append(w.b, '{')
	first := true
	for table, reqs := range in.RequestItems {
		w.sep(&first)
		w.b = store.AppendJSONString(w.b, table)
		w.b = append(w.b, ':', '[')
		for i, r := range reqs {
			if i > 0 {
				w.b = append(w.b, ',')
			}
			w.writeRequest(r)
		}
		w.b = append(w.b, ']')
	}
	w.b = append(w.b, '}')
	return w.close()
}

func (in *TransactWriteItemsInput) MarshalJSON() ([]byte, error) {
	var w jw
	w.open()
	w.str("ClientRequestToken", in.ClientRequestToken)
	w.key("TransactItems")
	w.b = append(w.b, '[')
	for i, it := range in.TransactItems {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		w.b = append(w.b, '{')
		first := true
		switch {
		case it.Put != nil:
			w.objectKey(&first, "Put")
			w.open()
			p := it.Put
			w.action(p.TableName, "Item", p.Item, nil, p.ConditionExpression, p.ExpressionAttributeNames, p.ExpressionAttributeValues)
		case it.Update != nil:
			w.objectKey(&first, "Update")
			w.open()
			u := it.Update
			w.action(u.TableName, "Key", u.Key, u.UpdateExpression, u.ConditionExpression, u.ExpressionAttributeNames,
				u.ExpressionAttributeValues)
		case it.Delete != nil:
			w.objectKey(&first, "Delete")
			w.open()
			d := it.Delete
			w.action(d.TableName, "Key", d.Key, nil, d.ConditionExpression, d.ExpressionAttributeNames, d.ExpressionAttributeValues)
		case it.ConditionCheck != nil:
			w.objectKey(&first, "ConditionCheck")
			w.open()
			c := it.ConditionCheck
			w.action(c.TableName, "Key", c.Key, nil, c.ConditionExpression, c.ExpressionAttributeNames, c.ExpressionAttributeValues)
		default:
			w.b = append(w.b, '}')
			continue
		}
		w.b = append(w.b, '}', '}')
		w.nested = 0
	}
	w.b = append(w.b, ']')
	return w.close()
}

// jw writes one JSON object of the wire's shapes. Keys of one object are comma-separated by
// the count of fields written at the current level (first tracks it).
type jw struct {
	b      []byte
	nested int // fields written in the innermost open object
}

func (w *jw) open() { w.b = append(w.b, '{'); w.nested = 0 }

func (w *jw) close() ([]byte, error) { return append(w.b, '}'), nil }

func (w *jw) key(k string) {
	if w.nested > 0 {
		w.b = append(w.b, ',')
	}
	w.nested++
	w.b = append(w.b, '"')
	w.b = append(w.b, k...)
	w.b = append(w.b, '"', ':')
}

func (w *jw) sep(first *bool) {
	if !*first {
		w.b = append(w.b, ',')
	}
	*first = false
}

func (w *jw) objectKey(first *bool, k string) {
	w.sep(first)
	w.b = append(w.b, '"')
	w.b = append(w.b, k...)
	w.b = append(w.b, '"', ':')
}

func (w *jw) str(k string, v *string) {
	if v == nil {
		return
	}
	w.key(k)
	w.b = store.AppendJSONString(w.b, *v)
}

func (w *jw) boolean(k string, v *bool) {
	if v == nil {
		return
	}
	w.key(k)
	w.b = strconv.AppendBool(w.b, *v)
}

// action writes what an item operation and a transaction's action share: the table, the
// item or key (under itemKey), an update expression, and the condition with the names and
// values of the expressions.
func (w *jw) action(table *string, itemKey string, item map[string]types.AttributeValue, update, cond *string,
	names map[string]string, values map[string]types.AttributeValue) {
	w.str("TableName", table)
	w.avMap(itemKey, item)
	w.str("UpdateExpression", update)
	w.cond(cond, names, values)
}

// cond writes a condition and the names and values of an action's expressions.
func (w *jw) cond(cond *string, names map[string]string, values map[string]types.AttributeValue) {
	w.str("ConditionExpression", cond)
	if len(names) > 0 {
		w.key("ExpressionAttributeNames")
		w.b = append(w.b, '{')
		first := true
		for k, v := range names {
			w.sep(&first)
			w.b = store.AppendJSONString(w.b, k)
			w.b = append(w.b, ':')
			w.b = store.AppendJSONString(w.b, v)
		}
		w.b = append(w.b, '}')
	}
	if len(values) > 0 {
		w.avMap("ExpressionAttributeValues", values)
	}
}

func (w *jw) avMap(k string, m map[string]types.AttributeValue) {
	if m == nil {
		return
	}
	w.key(k)
	w.b = appendAVMap(w.b, m)
}

func (w *jw) keysAndAttributes(ka types.KeysAndAttributes) {
	w.b = append(w.b, `{"Keys":[`...)
	for i, k := range ka.Keys {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		w.b = appendAVMap(w.b, k)
	}
	w.b = append(w.b, ']')
	if ka.ConsistentRead != nil {
		w.b = append(w.b, `,"ConsistentRead":`...)
		w.b = strconv.AppendBool(w.b, *ka.ConsistentRead)
	}
	w.b = append(w.b, '}')
}

func (w *jw) writeRequest(r types.WriteRequest) {
	switch {
	case r.PutRequest != nil:
		w.b = append(w.b, `{"PutRequest":{"Item":`...)
		w.b = appendAVMap(w.b, r.PutRequest.Item)
	case r.DeleteRequest != nil:
		w.b = append(w.b, `{"DeleteRequest":{"Key":`...)
		w.b = appendAVMap(w.b, r.DeleteRequest.Key)
	default:
		w.b = append(w.b, `{`...)
	}
	w.b = append(w.b, '}', '}')
}

func appendAVMap(b []byte, m map[string]types.AttributeValue) []byte {
	b = append(b, '{')
	first := true
	for k, v := range m {
		if !first {
			b = append(b, ',')
		}
		first = false
		b = store.AppendJSONString(b, k)
		b = append(b, ':')
		b = appendAV(b, v)
	}
	return append(b, '}')
}

// appendAV writes one attribute value in its wire form: {"S":"x"}, {"N":"1"}, {"M":{...}}.
func appendAV(b []byte, v types.AttributeValue) []byte {
	switch x := v.(type) {
	case *types.AttributeValueMemberS:
		b = append(b, `{"S":`...)
		b = store.AppendJSONString(b, x.Value)
	case *types.AttributeValueMemberN:
		b = append(b, `{"N":`...)
		b = store.AppendJSONString(b, x.Value)
	case *types.AttributeValueMemberB:
		b = append(b, `{"B":"`...)
		b = base64.StdEncoding.AppendEncode(b, x.Value)
		b = append(b, '"')
	case *types.AttributeValueMemberBOOL:
		b = append(b, `{"BOOL":`...)
		b = strconv.AppendBool(b, x.Value)
	case *types.AttributeValueMemberNULL:
		b = append(b, `{"NULL":`...)
		b = strconv.AppendBool(b, x.Value)
	case *types.AttributeValueMemberM:
		b = append(b, `{"M":`...)
		b = appendAVMap(b, x.Value)
	case *types.AttributeValueMemberL:
		b = append(b, `{"L":[`...)
		for i, e := range x.Value {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendAV(b, e)
		}
		b = append(b, ']')
	case *types.AttributeValueMemberSS:
		b = appendStrings(append(b, `{"SS":`...), x.Value)
	case *types.AttributeValueMemberNS:
		b = appendStrings(append(b, `{"NS":`...), x.Value)
	case *types.AttributeValueMemberBS:
		b = append(b, `{"BS":[`...)
		for i, e := range x.Value {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, '"')
			b = base64.StdEncoding.AppendEncode(b, e)
			b = append(b, '"')
		}
		b = append(b, ']')
	default:
		// toAV never builds anything else; NULL keeps the document well-formed.
		b = append(b, `{"NULL":true`...)
	}
	return append(b, '}')
}

func appendStrings(b []byte, ss []string) []byte {
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = store.AppendJSONString(b, s)
	}
	return append(b, ']')
}
