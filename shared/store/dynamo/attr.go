package dynamo

import (
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/evalobs/evalapi/shared/store"
)

// toAV converts one value of the store vocabulary to an attribute value. Anything outside the
// vocabulary is refused rather than guessed at, as the embedded adapter refuses it.
func toAV(v any) (types.AttributeValue, error) {
	switch x := v.(type) {
	case nil:
		return &types.AttributeValueMemberNULL{Value: true}, nil
	case string:
		// The SDK's JSON encoder would silently turn invalid UTF-8 into U+FFFD.
		if !utf8.ValidString(x) {
			return nil, fmt.Errorf("%w: string is not valid UTF-8", store.ErrInvalid)
		}
		return &types.AttributeValueMemberS{Value: x}, nil
	case bool:
		return &types.AttributeValueMemberBOOL{Value: x}, nil
	case int64:
		return &types.AttributeValueMemberN{Value: strconv.FormatInt(x, 10)}, nil
	case float64:
		if err := checkNumber(x); err != nil {
			return nil, err
		}
		// 'f' as the SDK's own encoder does: DynamoDB keeps at most 38 significant digits,
		// and a float64 never has more than 17.
		return &types.AttributeValueMemberN{Value: strconv.FormatFloat(x, 'f', -1, 64)}, nil
	case []any:
		if x == nil { // as the SDK's attributevalue encoder and the embedded adapter store it
			return &types.AttributeValueMemberNULL{Value: true}, nil
		}
		l := make([]types.AttributeValue, len(x))
		for i, e := range x {
			av, err := toAV(e)
			if err != nil {
				return nil, err
			}
			l[i] = av
		}
		return &types.AttributeValueMemberL{Value: l}, nil
	case map[string]any:
		if x == nil {
			return &types.AttributeValueMemberNULL{Value: true}, nil
		}
		m, err := toAVMap(x)
		if err != nil {
			return nil, err
		}
		return &types.AttributeValueMemberM{Value: m}, nil
	}
	return nil, fmt.Errorf("%w: unsupported value type %T", store.ErrInvalid, v)
}

func toAVMap(m map[string]any) (map[string]types.AttributeValue, error) {
	out := make(map[string]types.AttributeValue, len(m))
	for k, v := range m {
		if !utf8.ValidString(k) {
			return nil, fmt.Errorf("%w: attribute name %q is not valid UTF-8", store.ErrInvalid, k)
		}
		av, err := toAV(v)
		if err != nil {
			return nil, fmt.Errorf("attribute %q: %w", k, err)
		}
		out[k] = av
	}
	return out, nil
}

// fromAV converts an attribute value back to the vocabulary. Numbers go through
// store.ParseNumber, so integral numbers come back as int64 whatever was written. String and
// number sets, which this service never writes, read as lists.
func fromAV(av types.AttributeValue) (any, error) {
	switch x := av.(type) {
	case *types.AttributeValueMemberNULL:
		return nil, nil
	case *types.AttributeValueMemberS:
		return x.Value, nil
	case *types.AttributeValueMemberBOOL:
		return x.Value, nil
	case *types.AttributeValueMemberN:
		return store.ParseNumber(x.Value)
	case *types.AttributeValueMemberL:
		out := make([]any, len(x.Value))
		for i, e := range x.Value {
			v, err := fromAV(e)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	case *types.AttributeValueMemberM:
		return fromAVMap(x.Value)
	case *types.AttributeValueMemberSS:
		out := make([]any, len(x.Value))
		for i, s := range x.Value {
			out[i] = s
		}
		return out, nil
	case *types.AttributeValueMemberNS:
		out := make([]any, len(x.Value))
		for i, s := range x.Value {
			n, err := store.ParseNumber(s)
			if err != nil {
				return nil, err
			}
			out[i] = n
		}
		return out, nil
	}
	return nil, fmt.Errorf("%w: unsupported attribute type %T", store.ErrInvalid, av)
}

func fromAVMap(m map[string]types.AttributeValue) (map[string]any, error) {
	out := make(map[string]any, len(m))
	for k, av := range m {
		v, err := fromAV(av)
		if err != nil {
			return nil, fmt.Errorf("attribute %q: %w", k, err)
		}
		out[k] = v
	}
	return out, nil
}

func toItem(m map[string]types.AttributeValue) (store.Item, error) {
	out, err := fromAVMap(m)
	if err != nil {
		return nil, err
	}
	return store.Item(out), nil
}

// keyAV is the primary key of k as DynamoDB takes it.
func keyAV(k store.Key) (map[string]types.AttributeValue, error) {
	if err := checkKey(k); err != nil {
		return nil, err
	}
	return map[string]types.AttributeValue{
		store.AttrPK: &types.AttributeValueMemberS{Value: k.PK},
		store.AttrSK: &types.AttributeValueMemberS{Value: k.SK},
	}, nil
}
