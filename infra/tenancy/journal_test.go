package tenancy_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/evalobs/evalapi/shared/store"
)

// journal is a store.Table that remembers the key of every item ever written through it, so
// that a test can read back the whole table (the Table port has no Scan, on purpose) and
// compare it byte for byte before and after a request.
type journal struct {
	store.Table
	mu   sync.Mutex
	keys map[store.Key]bool
}

func newJournal(t store.Table) *journal { return &journal{Table: t, keys: map[store.Key]bool{}} }

func (j *journal) note(keys ...store.Key) {
	j.mu.Lock()
	defer j.mu.Unlock()
	for _, k := range keys {
		j.keys[k] = true
	}
}

func (j *journal) Put(ctx context.Context, item store.Item, conds ...store.Cond) error {
	j.note(item.Key())
	return j.Table.Put(ctx, item, conds...)
}

func (j *journal) Delete(ctx context.Context, key store.Key, conds ...store.Cond) error {
	j.note(key)
	return j.Table.Delete(ctx, key, conds...)
}

func (j *journal) Update(ctx context.Context, u store.Update) (store.Item, error) {
	j.note(u.Key)
	return j.Table.Update(ctx, u)
}

func (j *journal) BatchWrite(ctx context.Context, puts []store.Item, deletes []store.Key) error {
	for _, it := range puts {
		j.note(it.Key())
	}
	j.note(deletes...)
	return j.Table.BatchWrite(ctx, puts, deletes)
}

func (j *journal) Transact(ctx context.Context, ops []store.Op) error {
	for _, op := range ops {
		switch op.Kind {
		case store.OpPut:
			j.note(op.Item.Key())
		case store.OpUpdate:
			j.note(op.Update.Key)
		default:
			j.note(op.Key)
		}
	}
	return j.Table.Transact(ctx, ops)
}

// snapshot is every item the journal knows of, as canonical JSON by key ("" when absent).
type snapshot map[store.Key]string

func (j *journal) snapshot(ctx context.Context) (snapshot, error) {
	j.mu.Lock()
	keys := make([]store.Key, 0, len(j.keys))
	for k := range j.keys {
		keys = append(keys, k)
	}
	j.mu.Unlock()
	out := make(snapshot, len(keys))
	for _, k := range keys {
		it, err := j.Table.Get(ctx, k, true)
		switch {
		case err == nil:
			b, err := json.Marshal(it) // map keys sorted: canonical
			if err != nil {
				return nil, fmt.Errorf("snapshot %s: %w", k, err)
			}
			out[k] = string(b)
		case errors.Is(err, store.ErrNotFound):
			out[k] = ""
		default:
			return nil, fmt.Errorf("snapshot %s: %w", k, err)
		}
	}
	return out, nil
}

// diff lists the keys whose items differ between s and after (items added, changed or gone).
func (s snapshot) diff(after snapshot) []string {
	var out []string
	for k, v := range after {
		if s[k] != v {
			out = append(out, k.String())
		}
	}
	for k, v := range s {
		if _, ok := after[k]; !ok && v != "" {
			out = append(out, k.String())
		}
	}
	slices.Sort(out)
	return out
}

// orgItems is the part of s that belongs to organization orgID (items carrying its org_id).
func (s snapshot) orgItems(orgID string) snapshot {
	out := snapshot{}
	needle := fmt.Sprintf(`"org_id":%q`, orgID)
	for k, v := range s {
		if v != "" && strings.Contains(v, needle) {
			out[k] = v
		}
	}
	return out
}
