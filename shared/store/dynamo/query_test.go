package dynamo

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/evalobs/evalapi/shared/store"
)

func TestQueryKeyConditions(t *testing.T) {
	tbl := New(&fakeAPI{}, "tbl")
	for _, c := range []struct {
		q    store.Query
		want string
	}{
		{store.Query{PK: "P"}, "#n0 = :v0"},
		{store.Query{PK: "P", SKOp: store.SKEqual, From: "a"}, "#n0 = :v0 AND #n1 = :v1"},
		{store.Query{PK: "P", SKOp: store.SKPrefix, From: "ROW#"}, "#n0 = :v0 AND begins_with(#n1, :v1)"},
		{store.Query{PK: "P", SKOp: store.SKBetween, From: "a", To: "b"}, "#n0 = :v0 AND #n1 BETWEEN :v1 AND :v2"},
		{store.Query{PK: "P", SKOp: store.SKGreaterEq, From: "a"}, "#n0 = :v0 AND #n1 >= :v1"},
		{store.Query{PK: "P", SKOp: store.SKLessEq, From: "a"}, "#n0 = :v0 AND #n1 <= :v1"},
	} {
		in, err := tbl.queryInput(c.q)
		if err != nil {
			t.Fatalf("%+v: %v", c.q, err)
		}
		if got := aws.ToString(in.KeyConditionExpression); got != c.want {
			t.Errorf("%+v: key condition %q, want %q", c.q, got, c.want)
		}
	}
}

func TestQueryInput(t *testing.T) {
	in, err := New(&fakeAPI{}, "tbl").queryInput(store.Query{
		Index: store.IndexGSI1, PK: "EMAIL#a@b", Limit: 10, Descending: true,
		Start: store.Cursor{"PK": "p", "SK": "s", "GSI1PK": "EMAIL#a@b", "GSI1SK": "x", "other": "dropped"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if aws.ToString(in.IndexName) != "GSI1" || aws.ToInt32(in.Limit) != 10 ||
		aws.ToBool(in.ScanIndexForward) || aws.ToBool(in.ConsistentRead) {
		t.Errorf("input = %+v", in)
	}
	if in.ExpressionAttributeNames["#n0"] != "GSI1PK" {
		t.Errorf("names = %v", in.ExpressionAttributeNames)
	}
	if len(in.ExclusiveStartKey) != 4 || in.ExclusiveStartKey["GSI1SK"].(*types.AttributeValueMemberS).Value != "x" {
		t.Errorf("start key = %v", in.ExclusiveStartKey)
	}

	in, err = New(&fakeAPI{}, "tbl").queryInput(store.Query{PK: "P", Consistent: true})
	if err != nil || !aws.ToBool(in.ConsistentRead) || in.Limit != nil || in.IndexName != nil || in.ExclusiveStartKey != nil {
		t.Errorf("base table input = %+v, %v", in, err)
	}
}

func TestQueryRefusesBeforeSending(t *testing.T) {
	f := &fakeAPI{}
	for name, q := range map[string]store.Query{
		"consistent index": {Index: store.IndexGSI2, PK: "P", Consistent: true},
		"unknown index":    {Index: "GSI9", PK: "P"},
		"no partition":     {},
		"negative limit":   {PK: "P", Limit: -1},
		"reversed range":   {PK: "P", SKOp: store.SKBetween, From: "b", To: "a"},
		"unknown operator": {PK: "P", SKOp: 42, From: "a"},
		"empty prefix":     {PK: "P", SKOp: store.SKPrefix},
		"empty upper":      {PK: "P", SKOp: store.SKBetween, From: "a"},
		"cursor lacks SK":  {PK: "P", Start: store.Cursor{"PK": "P"}},
		"cursor elsewhere": {PK: "P", Start: store.Cursor{"PK": "Q", "SK": "a"}},
		"cursor off range": {PK: "P", SKOp: store.SKPrefix, From: "ROW#", Start: store.Cursor{"PK": "P", "SK": "META"}},
		"index cursor":     {Index: store.IndexGSI1, PK: "G", Start: store.Cursor{"PK": "P", "SK": "S"}},
	} {
		if _, err := New(f, "tbl").Query(t.Context(), q); !errors.Is(err, store.ErrInvalid) {
			t.Errorf("%s: err = %v, want ErrInvalid", name, err)
		}
	}
	if f.calls != 0 {
		t.Errorf("%d calls sent", f.calls)
	}
}

func TestQueryPage(t *testing.T) {
	f := &fakeAPI{query: func(*QueryInput) (*QueryOutput, error) {
		return &QueryOutput{
			Items: []store.Item{{"PK": "P", "SK": "1", "n": int64(2)}},
			LastEvaluatedKey: map[string]types.AttributeValue{
				"PK": &types.AttributeValueMemberS{Value: "P"}, "SK": &types.AttributeValueMemberS{Value: "1"},
			},
		}, nil
	}}
	page, err := New(f, "tbl").Query(t.Context(), store.Query{PK: "P", Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	want := store.Page{
		Items: []store.Item{{"PK": "P", "SK": "1", "n": int64(2)}},
		Next:  store.Cursor{"PK": "P", "SK": "1"},
	}
	if !reflect.DeepEqual(page, want) {
		t.Errorf("page = %+v, want %+v", page, want)
	}
}

func TestTransactRefusesBeforeSending(t *testing.T) {
	f := &fakeAPI{}
	tbl := New(f, "tbl")
	key := store.Key{PK: "P", SK: "S"}
	var tooMany []store.Op
	for i := range store.MaxTransactItems + 1 {
		tooMany = append(tooMany, store.CheckOp(store.Key{PK: "P", SK: store.Pad(int64(i), 3)}, store.Exists()))
	}
	big := strings.Repeat("x", 300*1024)
	var tooBig []store.Op
	for i := range 14 {
		tooBig = append(tooBig, store.PutOp(store.Item{"PK": "P", "SK": store.Pad(int64(i), 2), "b": big}))
	}
	for name, c := range map[string]struct {
		ops  []store.Op
		want error
	}{
		"101 actions":    {tooMany, store.ErrInvalid},
		"same key twice": {[]store.Op{store.PutOp(store.Item{"PK": "P", "SK": "S"}), store.DeleteOp(key)}, store.ErrInvalid},
		"update and check": {[]store.Op{
			store.UpdateOp(store.Update{Key: key, Add: map[string]int64{"n": 1}}), store.CheckOp(key, store.Exists()),
		}, store.ErrInvalid},
		"check without condition": {[]store.Op{store.CheckOp(key)}, store.ErrInvalid},
		"conditions beside update": {[]store.Op{{
			Kind: store.OpUpdate, Update: store.Update{Key: key}, Conds: []store.Cond{store.Exists()},
		}}, store.ErrInvalid},
		"unknown kind": {[]store.Op{{Kind: 9}}, store.ErrInvalid},
		"item too large": {[]store.Op{store.PutOp(store.Item{
			"PK": "P", "SK": "S", "b": strings.Repeat("x", store.MaxItemBytes),
		})}, store.ErrTooLarge},
		"over 4 MB": {tooBig, store.ErrInvalid},
	} {
		if err := tbl.Transact(t.Context(), c.ops); !errors.Is(err, c.want) {
			t.Errorf("%s: err = %v, want %v", name, err, c.want)
		}
	}
	if f.calls != 0 {
		t.Errorf("%d calls sent", f.calls)
	}
	if err := tbl.Transact(t.Context(), nil); !errors.Is(err, store.ErrInvalid) || f.calls != 0 {
		t.Errorf("empty transaction: %v after %d calls, want ErrInvalid before any", err, f.calls)
	}
}

func TestPutRefusesLargeItemBeforeSending(t *testing.T) {
	f := &fakeAPI{}
	it := store.Item{"PK": "P", "SK": "S", "b": strings.Repeat("x", store.MaxItemBytes-len("PKPSKSb")+1)}
	if err := New(f, "tbl").Put(t.Context(), it); !errors.Is(err, store.ErrTooLarge) || f.calls != 0 {
		t.Errorf("err = %v after %d calls, want ErrTooLarge before any", err, f.calls)
	}
	it["b"] = it["b"].(string)[1:]
	if err := New(f, "tbl").Put(t.Context(), it); err != nil || f.calls != 1 {
		t.Errorf("item of exactly 400 KB: err = %v after %d calls", err, f.calls)
	}
}
