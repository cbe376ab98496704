package embedded

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	bolt "go.etcd.io/bbolt"

	"github.com/evalobs/evalapi/shared/store"
)

// Query reads one page of a partition of the table or of an index.
//
// As DynamoDB does, a page stops at Limit items or once its items reach 1 MB, and then Next
// is set even when nothing follows (DynamoDB cannot know without reading on); Next is nil
// only when the range ran out.
func (db *DB) Query(ctx context.Context, q store.Query) (store.Page, error) {
	var page store.Page
	next, err := db.query(ctx, q, func(v []byte) (int, error) {
		it, n, err := decodeItemSized(v)
		if err != nil {
			return 0, err
		}
		page.Items = append(page.Items, it)
		return n, nil
	}, func(ix *index) store.Cursor {
		return cursorOf(page.Items[len(page.Items)-1], ix)
	})
	if err != nil {
		return store.Page{}, err
	}
	page.Next = next
	return page, nil
}

// query walks one page of q: add takes each item's encoded bytes (valid during the call) and
// returns its store.ItemSize; last is the cursor of the last item added, asked for when the
// page stops before the range ends.
func (db *DB) query(ctx context.Context, q store.Query, add func(v []byte) (int, error), last func(ix *index) store.Cursor) (store.Cursor, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("embedded: query %s: %w", q.PK, err)
	}
	p, err := planQuery(q)
	if err != nil {
		return nil, fmt.Errorf("embedded: query %s: %w", q.PK, err)
	}
	var next store.Cursor
	err = db.bolt.View(func(tx *bolt.Tx) error {
		items := tx.Bucket(bucketItems)
		var bucket *bolt.Bucket
		if p.ix == nil {
			bucket = items
		} else {
			bucket = tx.Bucket(p.ix.bucket)
		}
		c := bucket.Cursor()
		count, size := 0, 0
		for k, v := p.first(c); k != nil; k, v = p.next(c) {
			if p.ix != nil {
				v = items.Get(v) // index entries hold the base key
				if v == nil {
					return fmt.Errorf("index %s entry %q points to no item", p.ix.name, k)
				}
			}
			n, err := add(v)
			if err != nil {
				return err
			}
			count++
			size += n
			if (q.Limit > 0 && count >= q.Limit) || size >= store.MaxPageBytes {
				next = last(p.ix)
				break
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("embedded: query %s: %w", q.PK, err)
	}
	return next, nil
}

// plan is a query turned into a range [lo, hi) of encoded keys in one bucket.
type plan struct {
	ix         *index // nil for the base table
	lo, hi     []byte // hi nil: no upper bound
	descending bool
}

func (p plan) first(c *bolt.Cursor) ([]byte, []byte) {
	if !p.descending {
		return p.check(c.Seek(p.lo))
	}
	if p.hi == nil {
		return p.check(c.Last())
	}
	if k, _ := c.Seek(p.hi); k == nil {
		return p.check(c.Last())
	}
	return p.check(c.Prev())
}

func (p plan) next(c *bolt.Cursor) ([]byte, []byte) {
	if p.descending {
		return p.check(c.Prev())
	}
	return p.check(c.Next())
}

func (p plan) check(k, v []byte) ([]byte, []byte) {
	if k == nil || bytes.Compare(k, p.lo) < 0 || (p.hi != nil && bytes.Compare(k, p.hi) >= 0) {
		return nil, nil
	}
	return k, v
}

func planQuery(q store.Query) (plan, error) {
	p := plan{descending: q.Descending}
	if q.Index != "" {
		ix, ok := indexByName(q.Index)
		if !ok {
			return plan{}, fmt.Errorf("%w: no index %q", store.ErrInvalid, q.Index)
		}
		if q.Consistent {
			return plan{}, fmt.Errorf("%w: consistent reads are not supported on global secondary indexes", store.ErrInvalid)
		}
		p.ix = &ix
	}
	if err := checkQuery(q); err != nil {
		return plan{}, err
	}
	prefix := partitionPrefix(q.PK)
	bound := func(s string) []byte { return sortBound(prefix, p.ix != nil, s) }
	// Sort keys <= s are exactly those < s+"\x00", the next string in byte order.
	p.lo, p.hi = prefix, successor(prefix)
	switch q.SKOp {
	case store.SKEqual:
		p.lo, p.hi = bound(q.From), bound(q.From+"\x00")
	case store.SKPrefix:
		// From is valid UTF-8, so it holds no 0xFF byte and has a successor.
		p.lo, p.hi = bound(q.From), bound(string(successor([]byte(q.From))))
	case store.SKBetween:
		p.lo, p.hi = bound(q.From), bound(q.To+"\x00")
	case store.SKGreaterEq:
		p.lo = bound(q.From)
	case store.SKLessEq:
		p.hi = bound(q.From + "\x00")
	}
	if q.Start != nil {
		k, err := startKey(q, p.ix)
		if err != nil {
			return plan{}, err
		}
		// The cursor is exclusive: resume just after it (k+0x00 is the next key) or before it.
		if after := append(k, 0); !p.descending && bytes.Compare(after, p.lo) > 0 {
			p.lo = after
		} else if p.descending && (p.hi == nil || bytes.Compare(k, p.hi) < 0) {
			p.hi = k[:len(k):len(k)]
		}
	}
	return p, nil
}

func checkQuery(q store.Query) error {
	if q.PK == "" || !utf8.ValidString(q.PK) {
		return fmt.Errorf("%w: query needs a partition key of valid UTF-8", store.ErrInvalid)
	}
	if q.Limit < 0 {
		return fmt.Errorf("%w: negative limit %d", store.ErrInvalid, q.Limit)
	}
	operands := 1
	switch q.SKOp {
	case store.SKAny:
		operands = 0
	case store.SKBetween:
		operands = 2
		if q.From > q.To {
			return fmt.Errorf("%w: BETWEEN bounds %q > %q", store.ErrInvalid, q.From, q.To)
		}
	case store.SKEqual, store.SKPrefix, store.SKGreaterEq, store.SKLessEq:
	default:
		return fmt.Errorf("%w: unknown sort key operator %d", store.ErrInvalid, q.SKOp)
	}
	// DynamoDB refuses empty strings as key values, in key conditions too.
	for i, s := range []string{q.From, q.To}[:operands] {
		if s == "" || !utf8.ValidString(s) {
			return fmt.Errorf("%w: sort key operand %d must be a non-empty UTF-8 string", store.ErrInvalid, i+1)
		}
	}
	return nil
}

// startKey encodes the cursor of q, which must be a position in q's partition.
func startKey(q store.Query, ix *index) ([]byte, error) {
	pkAttr, skAttr := store.AttrPK, store.AttrSK
	if ix != nil {
		pkAttr, skAttr = ix.pk, ix.sk
	}
	base := store.Key{PK: q.Start[store.AttrPK], SK: q.Start[store.AttrSK]}
	isk, ok := q.Start[skAttr]
	if !ok || base.PK == "" || base.SK == "" {
		return nil, fmt.Errorf("%w: start cursor lacks key attributes", store.ErrInvalid)
	}
	// DynamoDB: "The provided starting key does not match the range key predicate".
	if q.Start[pkAttr] != q.PK || !matchesSK(q, isk) {
		return nil, fmt.Errorf("%w: start cursor is outside the query's key condition", store.ErrInvalid)
	}
	if ix == nil {
		return baseKey(base), nil
	}
	return indexKey(q.PK, isk, base), nil
}

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

// cursorOf is the position of it: its key attributes, and the index's for an index query
// (DynamoDB's LastEvaluatedKey).
func cursorOf(it store.Item, ix *index) store.Cursor {
	c := store.Cursor{store.AttrPK: it[store.AttrPK].(string), store.AttrSK: it[store.AttrSK].(string)}
	if ix != nil {
		c[ix.pk], c[ix.sk] = it[ix.pk].(string), it[ix.sk].(string)
	}
	return c
}
