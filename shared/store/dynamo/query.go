package dynamo

import (
	"context"
	"fmt"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/evalobs/evalapi/shared/store"
)

// Query reads one page of a partition of the table or of an index.
func (t *Table) Query(ctx context.Context, q store.Query) (store.Page, error) {
	in, err := t.queryInput(q)
	if err != nil {
		return store.Page{}, fmt.Errorf("dynamo: query %s %q: %w", indexLabel(q.Index), q.PK, err)
	}
	out, err := t.query(ctx, in)
	if err != nil {
		return store.Page{}, mapErr(fmt.Sprintf("query %s %q", indexLabel(q.Index), q.PK), err)
	}
	page := store.Page{Items: out.Items}
	if page.Items == nil {
		page.Items = []store.Item{}
	}
	if page.Next, err = toCursor(out.LastEvaluatedKey); err != nil {
		return store.Page{}, fmt.Errorf("dynamo: query %q: %w", q.PK, err)
	}
	return page, nil
}

func (t *Table) queryInput(q store.Query) (*QueryInput, error) {
	pkAttr, skAttr := store.TableSchema.PartitionKey, store.TableSchema.SortKey
	if q.Index != "" {
		ix, ok := store.TableSchema.IndexByName(q.Index)
		if !ok {
			return nil, fmt.Errorf("%w: unknown index %q", store.ErrInvalid, q.Index)
		}
		if q.Consistent {
			return nil, fmt.Errorf("%w: consistent reads are not supported on index %s", store.ErrInvalid, q.Index)
		}
		pkAttr, skAttr = ix.PartitionKey, ix.SortKey
	}
	if err := checkQuery(q); err != nil {
		return nil, err
	}
	start, err := startKey(q, pkAttr, skAttr)
	if err != nil {
		return nil, err
	}

	e := newExprs()
	pk, err := e.value(q.PK)
	if err != nil {
		return nil, err
	}
	keyCond := e.name(pkAttr) + " = " + pk
	if skCond, err := sortKeyCondition(e, skAttr, q); err != nil {
		return nil, err
	} else if skCond != "" {
		keyCond += " AND " + skCond
	}

	in := &QueryInput{
		TableName:                 aws.String(t.name),
		KeyConditionExpression:    aws.String(keyCond),
		ExpressionAttributeNames:  e.attrNames(),
		ExpressionAttributeValues: e.attrValues(),
		ScanIndexForward:          aws.Bool(!q.Descending),
		ConsistentRead:            aws.Bool(q.Consistent),
		ExclusiveStartKey:         start,
	}
	if q.Index != "" {
		in.IndexName = aws.String(q.Index)
	}
	if q.Limit > 0 {
		// Beyond int32 the 1 MB page limit cuts first anyway.
		in.Limit = aws.Int32(int32(min(q.Limit, math.MaxInt32)))
	}
	return in, nil
}

// checkQuery refuses what DynamoDB refuses in a key condition, before sending.
func checkQuery(q store.Query) error {
	if q.PK == "" || !utf8.ValidString(q.PK) {
		return fmt.Errorf("%w: query needs a partition key of valid UTF-8", store.ErrInvalid)
	}
	if q.Limit < 0 {
		return fmt.Errorf("%w: negative limit %d", store.ErrInvalid, q.Limit)
	}
	operands := []string{q.From}
	switch q.SKOp {
	case store.SKAny:
		operands = nil
	case store.SKBetween:
		operands = append(operands, q.To)
		if q.From > q.To {
			return fmt.Errorf("%w: sort key range %q > %q", store.ErrInvalid, q.From, q.To)
		}
	case store.SKEqual, store.SKPrefix, store.SKGreaterEq, store.SKLessEq:
	default:
		return fmt.Errorf("%w: unknown sort key operator %d", store.ErrInvalid, q.SKOp)
	}
	// DynamoDB refuses empty strings as key values, in key conditions too.
	for i, s := range operands {
		if s == "" || !utf8.ValidString(s) {
			return fmt.Errorf("%w: sort key operand %d must be a non-empty UTF-8 string", store.ErrInvalid, i+1)
		}
	}
	return nil
}

// sortKeyCondition renders the sort-key part of a key condition on attribute skAttr; "" for
// SKAny. The name is registered only when used: DynamoDB refuses unused names.
func sortKeyCondition(e *exprs, skAttr string, q store.Query) (string, error) {
	if q.SKOp == store.SKAny {
		return "", nil
	}
	sk := e.name(skAttr)
	from, err := e.value(q.From)
	if err != nil {
		return "", err
	}
	switch q.SKOp {
	case store.SKEqual:
		return sk + " = " + from, nil
	case store.SKPrefix:
		return "begins_with(" + sk + ", " + from + ")", nil
	case store.SKGreaterEq:
		return sk + " >= " + from, nil
	case store.SKLessEq:
		return sk + " <= " + from, nil
	case store.SKBetween:
		to, err := e.value(q.To)
		if err != nil {
			return "", err
		}
		return sk + " BETWEEN " + from + " AND " + to, nil
	}
	return "", fmt.Errorf("%w: unknown sort key operator %d", store.ErrInvalid, q.SKOp)
}

// startKey turns the cursor of q into an ExclusiveStartKey of exactly the key attributes
// DynamoDB wants (the table's, and the index's for an index query). A cursor outside the
// query's partition or sort-key range is refused as DynamoDB refuses it ("The provided
// starting key does not match the range key predicate"); moto does not check.
func startKey(q store.Query, pkAttr, skAttr string) (map[string]types.AttributeValue, error) {
	if len(q.Start) == 0 {
		return nil, nil
	}
	attrs := []string{store.AttrPK, store.AttrSK}
	if pkAttr != store.AttrPK {
		attrs = append(attrs, pkAttr, skAttr)
	}
	out := make(map[string]types.AttributeValue, len(attrs))
	for _, a := range attrs {
		v, ok := q.Start[a]
		if !ok || v == "" || !utf8.ValidString(v) {
			return nil, fmt.Errorf("%w: start cursor lacks key attribute %s", store.ErrInvalid, a)
		}
		out[a] = &types.AttributeValueMemberS{Value: v}
	}
	if q.Start[pkAttr] != q.PK || !matchesSK(q, q.Start[skAttr]) {
		return nil, fmt.Errorf("%w: start cursor is outside the query's key condition", store.ErrInvalid)
	}
	return out, nil
}

// matchesSK reports whether sort key sk satisfies the sort-key condition of q.
func matchesSK(q store.Query, sk string) bool {
	switch q.SKOp {
	case store.SKEqual:
		return sk == q.From
	case store.SKPrefix:
		return strings.HasPrefix(sk, q.From)
	case store.SKBetween:
		return q.From <= sk && sk <= q.To
	case store.SKGreaterEq:
		return sk >= q.From
	case store.SKLessEq:
		return sk <= q.From
	}
	return true
}

func toCursor(m map[string]types.AttributeValue) (store.Cursor, error) {
	if len(m) == 0 {
		return nil, nil
	}
	out := make(store.Cursor, len(m))
	for k, av := range m {
		s, ok := av.(*types.AttributeValueMemberS)
		if !ok {
			return nil, fmt.Errorf("%w: key attribute %s of the last item is %T, not a string", store.ErrInvalid, k, av)
		}
		out[k] = s.Value
	}
	return out, nil
}

func indexLabel(ix string) string {
	if ix == "" {
		return "table"
	}
	return ix
}
