package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/evalobs/evalapi/shared/app"
	"github.com/evalobs/evalapi/shared/app/local"
	"github.com/evalobs/evalapi/shared/app/workers"
	"github.com/evalobs/evalapi/shared/secrets"
	"github.com/evalobs/evalapi/shared/secrets/secretsfault"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/store/embedded"
	"github.com/evalobs/evalapi/shared/store/storefault"
	"github.com/evalobs/evalapi/shared/stream"
)

// snapshot is the whole content of a fixture store: every item and secret. The embedded
// store cannot be scanned, so a snapshot is built from the keys the fault wrappers saw
// written (the fixture's seeding went through them too).
type snapshot struct {
	cfg     app.Config
	items   map[store.Key]store.Item
	secrets map[string][]byte
}

// fixtureSnapshot seeds the event fixture once through recording wrappers and reads it
// back, so that each run of the matrix starts from a copy in milliseconds instead of
// seeding (and hashing the admin's password) again.
func fixtureSnapshot(t *testing.T) *snapshot {
	t.Helper()
	cfg, err := app.ReadConfig(app.Local, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	d, closeDeps, err := local.Open(t.Context(), cfg, slog.New(slog.DiscardHandler), local.Options{Memory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer closeDeps()
	ft, fs := storefault.New(d.Table), secretsfault.New(d.Secrets)
	d.Table, d.Secrets = ft, fs
	if err := seed(t.Context(), d); err != nil {
		t.Fatal(err)
	}
	if err := cheapenAdminPassword(t.Context(), d.Table); err != nil {
		t.Fatal(err)
	}
	s := &snapshot{cfg: cfg, items: map[store.Key]store.Item{}, secrets: map[string][]byte{}}
	if err := s.read(t.Context(), ft.Inner(), ft.Written(), fs.Inner(), append(fs.Written(), cfg.JWTSecretARN)); err != nil {
		t.Fatal(err)
	}
	return s
}

// read adds the items at keys and the secrets at refs (absent ones are left out).
func (s *snapshot) read(ctx context.Context, tbl store.Table, keys []store.Key, sec secrets.Store, refs []string) error {
	keys = slices.Compact(slices.SortedFunc(slices.Values(keys), func(a, b store.Key) int {
		return strings.Compare(a.String(), b.String())
	}))
	items, err := tbl.BatchGet(ctx, keys, true)
	if err != nil {
		return fmt.Errorf("snapshot: %w", err)
	}
	for _, it := range items {
		s.items[it.Key()] = it
	}
	for _, ref := range refs {
		v, err := sec.Get(ctx, ref)
		if err == nil {
			s.secrets[ref] = v
		}
	}
	return nil
}

// world is one fresh store holding a snapshot, behind fault wrappers, and the Deps over them.
type world struct {
	from *snapshot
	ft   *storefault.Table
	fs   *secretsfault.Store
	d    app.Deps
	// stream records the writes of the table's stream consumer (settle), which faults do
	// not touch: they are the request's.
	stream *storefault.Table
}

func newWorld(t *testing.T, from *snapshot, tf []storefault.Fault, sf []secretsfault.Fault) *world {
	t.Helper()
	db, err := embedded.OpenMemory()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.BatchWrite(t.Context(), slices.Collect(maps.Values(from.items)), nil); err != nil {
		t.Fatal(err)
	}
	mem := secrets.NewMemory()
	for ref, v := range from.secrets {
		if _, err := mem.Put(t.Context(), ref, v, nil); err != nil {
			t.Fatal(err)
		}
	}
	w := &world{from: from, ft: storefault.New(db, tf...), fs: secretsfault.New(mem, sf...), stream: storefault.New(db)}
	w.d, err = app.NewDeps(from.cfg, slog.New(slog.DiscardHandler), w.ft, w.fs)
	if err != nil {
		t.Fatal(err)
	}
	w.d.ExperimentQueue = &local.HeldQueue{} // experiments start; nothing runs them
	return w
}

// snapshot reads the world's store once its stream has run (settle): the snapshot it
// started from, changed by what its wrappers saw written.
func (w *world) snapshot(ctx context.Context) (*snapshot, error) {
	if err := w.settle(ctx); err != nil {
		return nil, err
	}
	s := &snapshot{cfg: w.from.cfg, items: map[store.Key]store.Item{}, secrets: map[string][]byte{}}
	keys := slices.Concat(slices.Collect(maps.Keys(w.from.items)), w.ft.Written(), w.stream.Written())
	refs := append(slices.Collect(maps.Keys(w.from.secrets)), w.fs.Written()...)
	return s, s.read(ctx, w.ft.Inner(), keys, w.fs.Inner(), refs)
}

// maxSettleRounds bounds the rounds of settle (a purge reports removals it purges in turn).
const maxSettleRounds = 8

// settle runs the table's stream consumer, with the handlers the stream function runs
// (workers.Stream), over what the world's writes changed, until it has nothing more to do:
// an effect is judged as a reader sees it once the stream has run, seconds after the
// request (a revision's extremes, repaired there when a fault cut the request short). The
// embedded store in memory has no stream, so each round hands the consumer one record per
// changed key, its item before and now: net changes, which the handlers take as they take
// a batch of the stream's records. The consumer's writes make the next round.
func (w *world) settle(ctx context.Context) error {
	d := w.d
	d.Table = w.stream
	consumer := workers.Stream(d, nil, workers.EvalConfig{})
	seen := maps.Clone(w.from.items)
	keys := w.ft.Written()
	for range maxSettleRounds {
		keys = slices.SortedFunc(slices.Values(keys), func(a, b store.Key) int { return strings.Compare(a.String(), b.String()) })
		keys = slices.Compact(keys)
		items, err := w.ft.Inner().BatchGet(ctx, keys, true)
		if err != nil {
			return fmt.Errorf("settle: %w", err)
		}
		now := make(map[store.Key]store.Item, len(items))
		for _, it := range items {
			now[it.Key()] = it
		}
		var records []stream.Record
		for _, k := range keys {
			old, cur := seen[k], now[k]
			if old == nil && cur == nil || old != nil && cur != nil && len(changedAttrs(old, cur)) == 0 {
				continue
			}
			seen[k] = cur
			if r := (stream.Record{ID: k.String(), Old: old, New: cur}); consumer.Accepts(r) {
				records = append(records, r)
			}
		}
		if len(records) == 0 {
			return nil
		}
		if failed := consumer.Handle(ctx, records); len(failed) > 0 {
			return fmt.Errorf("settle: the stream consumer failed on %v", failed)
		}
		keys = w.stream.Written()
	}
	return fmt.Errorf("settle: the stream still has work after %d rounds", maxSettleRounds)
}

// random matches the parts of keys and names that differ between two runs of one request:
// ids (UUIDs, tokens, 16-character segment ids), timestamps.
var random = regexp.MustCompile(`[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}|[A-Za-z0-9_]{16,}|[0-9]+`)

func norm(s string) string { return random.ReplaceAllString(s, "*") }

// effect describes how after differs from before, in terms that a twin run of the same
// request yields too: "add <key>", "remove <key>", "change <key> [attrs]", "secret ...".
func effect(before, after *snapshot) []string {
	var out []string
	for k, a := range after.items {
		b, ok := before.items[k]
		switch {
		case !ok:
			out = append(out, "add "+norm(k.String()))
		default:
			if attrs := changedAttrs(b, a); len(attrs) > 0 && !slices.Equal(attrs, bookkeeping) {
				out = append(out, fmt.Sprintf("change %s %v", norm(k.String()), attrs))
			}
		}
	}
	for k := range before.items {
		if _, ok := after.items[k]; !ok {
			out = append(out, "remove "+norm(k.String()))
		}
	}
	for ref, v := range after.secrets {
		if b, ok := before.secrets[ref]; !ok {
			out = append(out, "add secret "+norm(ref))
		} else if string(b) != string(v) {
			out = append(out, "change secret "+norm(ref))
		}
	}
	for ref := range before.secrets {
		if _, ok := after.secrets[ref]; !ok {
			out = append(out, "remove secret "+norm(ref))
		}
	}
	sort.Strings(out)
	return out
}

// bookkeeping is a change that is no part of an operation's effect: auth stamps an API key's
// last use after answering, best effort (a failure there is logged, the request stands).
var bookkeeping = []string{"last_used_at"}

func changedAttrs(a, b store.Item) []string {
	var names []string
	for k := range a {
		if _, ok := b[k]; !ok {
			names = append(names, k)
		}
	}
	for k, v := range b {
		if av, ok := a[k]; ok && reflect.DeepEqual(av, v) {
			continue // equal values marshal alike: the JSON below is for numbers of other types
		}
		x, _ := json.Marshal(v)
		y, _ := json.Marshal(a[k])
		if _, ok := a[k]; !ok || string(x) != string(y) {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	return names
}
