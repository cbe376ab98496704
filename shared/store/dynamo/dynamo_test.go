package dynamo

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/evalobs/evalapi/shared/awscall"
	"github.com/evalobs/evalapi/shared/store"
)

func TestValueRoundTrip(t *testing.T) {
	for _, v := range []any{
		nil, "", "héllo", true, false,
		int64(0), int64(-42), int64(math.MaxInt64), int64(math.MinInt64),
		0.5, -1.25, 1e-7, 123456.789,
		[]any{}, []any{"a", int64(1), nil, []any{true}},
		map[string]any{}, map[string]any{"a": map[string]any{"b": []any{2.5}}},
	} {
		av, err := toAV(v)
		if err != nil {
			t.Fatalf("toAV(%#v): %v", v, err)
		}
		got, err := fromAV(av)
		if err != nil {
			t.Fatalf("fromAV(toAV(%#v)): %v", v, err)
		}
		if !reflect.DeepEqual(got, v) {
			t.Errorf("round trip of %#v = %#v", v, got)
		}
	}
}

func TestIntegralFloatReadsAsInt(t *testing.T) {
	av, err := toAV(3.0)
	if err != nil {
		t.Fatal(err)
	}
	if n := av.(*types.AttributeValueMemberN).Value; n != "3" {
		t.Errorf("3.0 encodes as %q, want \"3\"", n)
	}
	got, _ := fromAV(av)
	if got != int64(3) {
		t.Errorf("3.0 reads back as %#v, want int64(3)", got)
	}
}

func TestFromAVNumbers(t *testing.T) {
	for in, want := range map[string]any{
		"1": int64(1), "-7": int64(-7), "1.5": 1.5, "1E+2": int64(100), "0.000001": 1e-6,
	} {
		got, err := fromAV(&types.AttributeValueMemberN{Value: in})
		if err != nil || got != want {
			t.Errorf("N %q = %#v, %v; want %#v", in, got, err, want)
		}
	}
	got, err := fromAV(&types.AttributeValueMemberSS{Value: []string{"a", "b"}})
	if err != nil || !reflect.DeepEqual(got, []any{"a", "b"}) {
		t.Errorf("SS = %#v, %v", got, err)
	}
	if _, err := fromAV(&types.AttributeValueMemberB{Value: []byte{1}}); !errors.Is(err, store.ErrInvalid) {
		t.Errorf("B: err = %v, want ErrInvalid", err)
	}
}

func TestNilListAndMapAreNull(t *testing.T) {
	for _, v := range []any{[]any(nil), map[string]any(nil)} {
		av, err := toAV(v)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := av.(*types.AttributeValueMemberNULL); !ok {
			t.Errorf("%#v encodes as %T, want NULL", v, av)
		}
	}
}

func TestToAVRefusesOutsideVocabulary(t *testing.T) {
	for _, v := range []any{
		7, float32(1), math.NaN(), math.Inf(1), 1e126, -1e-131, struct{}{}, []any{1},
		map[string]any{"x": []byte("b")}, "\xff", map[string]any{"\xfe": "x"},
	} {
		if _, err := toAV(v); !errors.Is(err, store.ErrInvalid) {
			t.Errorf("toAV(%#v): err = %v, want ErrInvalid", v, err)
		}
	}
}

func TestCondition(t *testing.T) {
	e := newExprs()
	got, err := e.condition([]store.Cond{
		store.NotExists(), store.Equals("version", int64(3)), store.AttrAbsent("deleted_at"), store.Exists(),
	})
	if err != nil {
		t.Fatal(err)
	}
	want := "attribute_not_exists(#n0) AND #n1 = :v0 AND attribute_not_exists(#n2) AND attribute_exists(#n0)"
	if got != want {
		t.Errorf("condition = %q\nwant %q", got, want)
	}
	wantNames := map[string]string{"#n0": "PK", "#n1": "version", "#n2": "deleted_at"}
	if !reflect.DeepEqual(e.attrNames(), wantNames) {
		t.Errorf("names = %v, want %v", e.attrNames(), wantNames)
	}
	if v := e.attrValues()[":v0"].(*types.AttributeValueMemberN).Value; v != "3" {
		t.Errorf(":v0 = %q", v)
	}
}

func TestConditionKeepsUserDataOutOfExpression(t *testing.T) {
	e := newExprs()
	evil := "x) OR attribute_exists(PK"
	got, err := e.condition([]store.Cond{store.Equals(evil, evil)})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(got, evil) || got != "#n0 = :v0" {
		t.Errorf("condition = %q", got)
	}
}

func TestConditionRefuses(t *testing.T) {
	for _, c := range []store.Cond{{Kind: 99}, {Kind: store.CondEquals}, {Kind: store.CondAttrAbsent}, store.Equals("a", 1)} {
		if _, err := newExprs().condition([]store.Cond{c}); !errors.Is(err, store.ErrInvalid) {
			t.Errorf("%+v: err = %v, want ErrInvalid", c, err)
		}
	}
	if got, err := newExprs().condition(nil); got != "" || err != nil {
		t.Errorf("no conditions = %q, %v", got, err)
	}
}

func TestUpdateExpression(t *testing.T) {
	e := newExprs()
	got, err := e.update(store.Update{
		Key:    store.Key{PK: "P", SK: "S"},
		Set:    map[string]any{"b": "x", "a": int64(1), "GSI1PK": "G"},
		Add:    map[string]int64{"count": 2},
		Remove: []string{"old", "GSI2PK"},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := "SET #n0 = :v0, #n1 = :v1, #n2 = :v2 ADD #n3 :v3 REMOVE #n4, #n5"
	if got != want {
		t.Errorf("update = %q\nwant %q", got, want)
	}
	names := []string{"GSI1PK", "a", "b", "count", "old", "GSI2PK"}
	for i, n := range names {
		if p := e.byName[n]; p != "#n"+string(rune('0'+i)) {
			t.Errorf("%s has placeholder %s", n, p)
		}
	}
	if got, err := newExprs().update(store.Update{}); got != "" || err != nil {
		t.Errorf("empty update = %q, %v", got, err)
	}
}

func TestUpdateRefuses(t *testing.T) {
	for name, u := range map[string]store.Update{
		"set key":        {Set: map[string]any{"PK": "x"}},
		"remove key":     {Remove: []string{"SK"}},
		"set and add":    {Set: map[string]any{"n": int64(1)}, Add: map[string]int64{"n": 1}},
		"remove twice":   {Remove: []string{"a", "a"}},
		"index number":   {Set: map[string]any{"GSI1SK": int64(1)}},
		"index empty":    {Set: map[string]any{"GSI2PK": ""}},
		"index counter":  {Add: map[string]int64{"GSI1PK": 1}},
		"empty name":     {Remove: []string{""}},
		"bad value type": {Set: map[string]any{"x": 7}},
	} {
		if _, err := newExprs().update(u); !errors.Is(err, store.ErrInvalid) {
			t.Errorf("%s: err = %v, want ErrInvalid", name, err)
		}
	}
}

func TestItemAV(t *testing.T) {
	ok := store.Item{"PK": strings.Repeat("p", 2048), "SK": strings.Repeat("s", 1024), "GSI1PK": "G", "n": int64(1)}
	if _, err := itemAV(ok); err != nil {
		t.Fatal(err)
	}
	for name, it := range map[string]store.Item{
		"no SK":        {"PK": "P"},
		"number PK":    {"PK": int64(1), "SK": "S"},
		"index null":   {"PK": "P", "SK": "S", "GSI1SK": nil},
		"index number": {"PK": "P", "SK": "S", "GSI2PK": 2.5},
		"index empty":  {"PK": "P", "SK": "S", "GSI1PK": ""},
		"long PK":      {"PK": strings.Repeat("p", 2049), "SK": "S"},
		"long SK":      {"PK": "P", "SK": strings.Repeat("s", 1025)},
		"long GSI1SK":  {"PK": "P", "SK": "S", "GSI1SK": strings.Repeat("s", 1025)},
		"empty name":   {"PK": "P", "SK": "S", "": "x"},
	} {
		if _, err := itemAV(it); !errors.Is(err, store.ErrInvalid) {
			t.Errorf("%s: err = %v, want ErrInvalid", name, err)
		}
	}
	big := store.Item{"PK": "P", "SK": "S", "blob": strings.Repeat("x", store.MaxItemBytes)}
	if _, err := itemAV(big); !errors.Is(err, store.ErrTooLarge) {
		t.Errorf("big item: err = %v, want ErrTooLarge", err)
	}
}

// refusal is DynamoDB's refusal as the functions' client returns it.
func refusal(code, msg, body string) error {
	return &awscall.Error{Service: "dynamodb", Op: "Op", Code: code, Message: msg, Status: 400, Body: []byte(body)}
}

func TestMapErr(t *testing.T) {
	generic := func(code, msg string) error { return refusal(code, msg, "") }
	for name, c := range map[string]struct {
		err  error
		want error
	}{
		"condition":      {generic("ConditionalCheckFailedException", "The conditional request failed"), store.ErrConditionFailed},
		"item size":      {generic("ValidationException", "Item size has exceeded the maximum allowed size"), store.ErrTooLarge},
		"update size":    {generic("ValidationException", "Item size to update has exceeded the maximum allowed size"), store.ErrTooLarge},
		"validation":     {generic("ValidationException", "One or more parameter values were invalid"), store.ErrInvalid},
		"provisioned":    {generic("ProvisionedThroughputExceededException", ""), store.ErrThrottled},
		"throttling":     {generic("ThrottlingException", "Rate exceeded"), store.ErrThrottled},
		"request limit":  {generic("RequestLimitExceeded", ""), store.ErrThrottled},
		"tx conflict":    {generic("TransactionConflictException", ""), store.ErrConflict},
		"tx in progress": {generic("TransactionInProgressException", ""), store.ErrConflict},
		// The SDK's error types still map (tests and tools may hand them in).
		"sdk condition": {&types.ConditionalCheckFailedException{Message: aws.String("The conditional request failed")}, store.ErrConditionFailed},
	} {
		got := mapErr("op", c.err)
		if !errors.Is(got, c.want) {
			t.Errorf("%s: %v is not %v", name, got, c.want)
		}
		if !errors.Is(got, c.err) {
			t.Errorf("%s: %v lost the service's error", name, got)
		}
	}
	other := generic("ResourceNotFoundException", "no table")
	if got := mapErr("op", other); !errors.Is(got, other) || errors.Is(got, store.ErrInvalid) {
		t.Errorf("unknown code mapped to %v", got)
	}
}

func TestMapErrTransactionCanceled(t *testing.T) {
	withReasons := refusal("TransactionCanceledException", "Transaction cancelled, please refer cancellation reasons for specific reasons [Unknown]",
		`{"__type":"com.amazonaws.dynamodb.v20120810#TransactionCanceledException","CancellationReasons":[{"Code":"None"},{"Code":"ConditionalCheckFailed","Message":"The conditional request failed"},{}],"Message":"Transaction cancelled"}`)
	onlyMessage := refusal("TransactionCanceledException",
		"Transaction cancelled, please refer cancellation reasons for specific reasons [None, TransactionConflict]", `{}`)
	for _, c := range []struct {
		err  error
		want []string
		is   error
	}{
		{withReasons, []string{"None", "ConditionalCheckFailed", "None"}, store.ErrConditionFailed},
		{onlyMessage, []string{"None", "TransactionConflict"}, store.ErrConflict},
	} {
		got := mapErr("transact", c.err)
		var tx *store.TxCanceledError
		if !errors.As(got, &tx) {
			t.Fatalf("%v is not a *TxCanceledError", got)
		}
		if !reflect.DeepEqual(tx.Reasons, c.want) {
			t.Errorf("reasons = %q, want %q", tx.Reasons, c.want)
		}
		if !errors.Is(got, c.is) {
			t.Errorf("%v is not %v", got, c.is)
		}
	}
}
