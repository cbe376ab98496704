// Package store is the single-table data model of the service: the Table port that every
// repository is written against, the values it moves, and the key builders. Adapters live in
// the subpackages dynamo (AWS SDK v2) and embedded (bbolt, or memory for tests); the
// conformance suite in storetest holds them to the same semantics.
//
// Items are maps of attribute name to value. The value vocabulary is deliberately small so
// that both adapters can keep it exactly: string, int64, float64, bool, nil, []any and
// map[string]any. Numbers are normalised on the way out of every adapter: an integral number
// comes back as int64, any other as float64 (DynamoDB's N type does not keep the difference).
package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// Attribute names of the table's keys and indexes.
const (
	AttrPK        = "PK"
	AttrSK        = "SK"
	AttrGSI1PK    = "GSI1PK"
	AttrGSI1SK    = "GSI1SK"
	AttrGSI2PK    = "GSI2PK"
	AttrGSI2SK    = "GSI2SK"
	AttrEntity    = "entity"
	AttrExpiresAt = "expires_at" // TTL, epoch seconds
)

// Index names. The empty name is the base table.
const (
	IndexGSI1 = "GSI1"
	IndexGSI2 = "GSI2"
)

// Service limits the adapters enforce identically.
const (
	MaxItemBytes     = 400 * 1024
	MaxPageBytes     = 1024 * 1024
	MaxBatchGet      = 100
	MaxBatchWrite    = 25
	MaxTransactItems = 100
	MaxTransactBytes = 4 * 1024 * 1024
)

// Key is the primary key of one item.
type Key struct {
	PK string
	SK string
}

func (k Key) String() string { return k.PK + "|" + k.SK }

// Item is one record. It always holds PK and SK as strings.
type Item map[string]any

// Key returns the item's primary key.
func (it Item) Key() Key {
	pk, _ := it[AttrPK].(string)
	sk, _ := it[AttrSK].(string)
	return Key{PK: pk, SK: sk}
}

// CondKind names one condition of the fixed vocabulary.
type CondKind int

const (
	// CondNotExists holds when no item has the key.
	CondNotExists CondKind = iota + 1
	// CondExists holds when an item has the key.
	CondExists
	// CondEquals holds when the item exists and Attr equals Value.
	CondEquals
	// CondAttrAbsent holds when the item is absent or has no attribute Attr.
	CondAttrAbsent
	// CondAtMost holds when the item is absent, lacks Attr, or Attr is a number ≤ Value
	// (an int64): the budget reservations' "spent + reserved + estimate ≤ budget".
	CondAtMost
)

// Cond is one condition on the item a write touches. Several conditions on one write must
// all hold.
type Cond struct {
	Kind  CondKind
	Attr  string
	Value any
}

// NotExists is the condition of a create.
func NotExists() Cond { return Cond{Kind: CondNotExists} }

// Exists is the condition of an update or delete that must not resurrect or invent an item.
func Exists() Cond { return Cond{Kind: CondExists} }

// Equals holds when the item exists and attr holds value (compare-and-swap, optimistic locks).
func Equals(attr string, value any) Cond { return Cond{Kind: CondEquals, Attr: attr, Value: value} }

// AttrAbsent holds when the item is absent or lacks attr.
func AttrAbsent(attr string) Cond { return Cond{Kind: CondAttrAbsent, Attr: attr} }

// AtMost holds when the item or attr is absent, or attr ≤ limit.
func AtMost(attr string, limit int64) Cond { return Cond{Kind: CondAtMost, Attr: attr, Value: limit} }

// Update changes attributes of one item. As in DynamoDB, an update of an absent item creates
// it (with its key attributes) unless a condition forbids it. Set, Add and Remove must not
// name the same attribute twice, nor a key attribute.
type Update struct {
	Key    Key
	Set    map[string]any
	Add    map[string]int64 // atomic increments; an absent attribute counts as 0
	Remove []string
	Conds  []Cond
}

// SKOp is the operator of a sort-key condition in a query.
type SKOp int

const (
	SKAny SKOp = iota
	SKEqual
	SKPrefix
	SKBetween // From <= SK <= To
	SKGreaterEq
	SKLessEq
)

// Query reads one partition of the table or of an index in sort-key order.
type Query struct {
	Index      string // "" for the base table, IndexGSI1, IndexGSI2
	PK         string // the partition (the index's partition key when Index is set)
	SKOp       SKOp
	From, To   string // operands of the sort-key condition (To only for SKBetween)
	Limit      int    // items evaluated at most; 0 means up to the 1 MB page limit
	Start      Cursor // resume after this position (from a previous Page.Next)
	Descending bool
	Consistent bool // strongly consistent; not allowed on an index
}

// Cursor is the position after the last item of a page: the key attributes of that item
// (and of the index, for an index query). Nil means the start, or, in a Page, the end.
type Cursor map[string]string

// Page is one page of a query. Next is nil when the partition range is exhausted. As in
// DynamoDB a page may be cut short of Limit by the 1 MB page limit, and a page may be empty
// while Next is not nil.
type Page struct {
	Items []Item
	Next  Cursor
}

// OpKind names one action of a transaction.
type OpKind int

const (
	OpPut OpKind = iota + 1
	OpDelete
	OpUpdate
	OpCheck
)

// Op is one action of a transaction. No two actions of one transaction may touch the same key.
type Op struct {
	Kind   OpKind
	Item   Item   // OpPut
	Key    Key    // OpDelete, OpCheck
	Update Update // OpUpdate
	Conds  []Cond // OpPut, OpDelete, OpCheck
}

// PutOp, DeleteOp, UpdateOp and CheckOp build transaction actions.
func PutOp(item Item, conds ...Cond) Op { return Op{Kind: OpPut, Item: item, Conds: conds} }
func DeleteOp(key Key, conds ...Cond) Op {
	return Op{Kind: OpDelete, Key: key, Conds: conds}
}
func UpdateOp(u Update) Op              { return Op{Kind: OpUpdate, Update: u} }
func CheckOp(key Key, conds ...Cond) Op { return Op{Kind: OpCheck, Key: key, Conds: conds} }

// Table is the port every repository is written against.
type Table interface {
	// Get reads one item; ErrNotFound when absent.
	Get(ctx context.Context, key Key, consistent bool) (Item, error)
	// Put writes a whole item; ErrConditionFailed when a condition does not hold.
	Put(ctx context.Context, item Item, conds ...Cond) error
	// Delete removes one item (absent is not an error unless a condition says so).
	Delete(ctx context.Context, key Key, conds ...Cond) error
	// Update applies u and returns the item as it is afterwards.
	Update(ctx context.Context, u Update) (Item, error)
	// Query reads one page of a partition.
	Query(ctx context.Context, q Query) (Page, error)
	// BatchGet reads any number of items (split at 100 keys, unprocessed keys retried);
	// absent items are left out; order is not kept. consistent asks for strongly consistent
	// reads, as Get's flag does.
	BatchGet(ctx context.Context, keys []Key, consistent bool) ([]Item, error)
	// BatchWrite puts and deletes any number of items without conditions (split at 25,
	// unprocessed items retried). It is not atomic across batches.
	BatchWrite(ctx context.Context, puts []Item, deletes []Key) error
	// Transact applies up to 100 actions all or nothing.
	Transact(ctx context.Context, ops []Op) error
}

// Errors every adapter returns (wrapped) for the same situations.
var (
	ErrNotFound        = errors.New("store: item not found")
	ErrConditionFailed = errors.New("store: condition failed")
	ErrTooLarge        = errors.New("store: item larger than 400 KB")
	ErrInvalid         = errors.New("store: invalid request")
	ErrConflict        = errors.New("store: transaction conflict")
	ErrThrottled       = errors.New("store: throttled")
)

// TxCanceledError reports a transaction that did not apply. Reasons has one entry per action:
// "None", "ConditionalCheckFailed", "TransactionConflict", ... as DynamoDB names them.
type TxCanceledError struct {
	Reasons []string
}

func (e *TxCanceledError) Error() string {
	return "store: transaction canceled [" + strings.Join(e.Reasons, ", ") + "]"
}

// Is makes errors.Is(err, ErrConditionFailed) true when any action's condition failed, and
// errors.Is(err, ErrConflict) when another write raced this transaction.
func (e *TxCanceledError) Is(target error) bool {
	for _, r := range e.Reasons {
		switch {
		case target == ErrConditionFailed && r == "ConditionalCheckFailed":
			return true
		case target == ErrConflict && r == "TransactionConflict":
			return true
		}
	}
	return false
}

// Failed returns the index of the first action whose condition failed, or -1.
func (e *TxCanceledError) Failed() int {
	for i, r := range e.Reasons {
		if r == "ConditionalCheckFailed" {
			return i
		}
	}
	return -1
}

// QueryAll reads every page of q (for internal reads whose size is bounded by design).
func QueryAll(ctx context.Context, t Table, q Query) ([]Item, error) {
	var out []Item
	for {
		p, err := t.Query(ctx, q)
		if err != nil {
			return nil, err
		}
		out = append(out, p.Items...)
		if p.Next == nil || (q.Limit > 0 && len(out) >= q.Limit) {
			return out, nil
		}
		q.Start = p.Next
	}
}

// ValidateItem checks what both adapters must refuse before writing: missing or non-string
// keys, and values outside the vocabulary.
func ValidateItem(it Item) error {
	for _, a := range []string{AttrPK, AttrSK} {
		s, ok := it[a].(string)
		if !ok || s == "" {
			return fmt.Errorf("%w: attribute %s must be a non-empty string", ErrInvalid, a)
		}
	}
	for name, v := range it {
		if err := validValue(v); err != nil {
			return fmt.Errorf("%w: attribute %q: %v", ErrInvalid, name, err)
		}
	}
	return nil
}

func validValue(v any) error {
	switch x := v.(type) {
	case nil, string, int64, float64, bool:
		return nil
	case []any:
		for _, e := range x {
			if err := validValue(e); err != nil {
				return err
			}
		}
		return nil
	case map[string]any:
		for _, e := range x {
			if err := validValue(e); err != nil {
				return err
			}
		}
		return nil
	default:
		return fmt.Errorf("unsupported value type %T", v)
	}
}
