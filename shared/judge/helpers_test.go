package judge_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/evalobs/evalapi/shared/credentials"
	"github.com/evalobs/evalapi/shared/judge"
	"github.com/evalobs/evalapi/shared/provider"
	"github.com/evalobs/evalapi/shared/secrets"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/store/embedded"
)

const canary = "judge-canary-0b9e4c2a"

// world is an organization with one user, an engine over an embedded table and a memory
// secret store, and a provider client that never waits between retries.
type world struct {
	t      testing.TB
	tbl    store.Table
	sec    *secrets.Memory
	engine *judge.Engine
	org    string
	user   string
}

func newWorld(t *testing.T) *world { return newWorldB(t) }

func newWorldB(t testing.TB) *world {
	t.Helper()
	db, err := embedded.OpenMemory()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	sec := secrets.NewMemory()
	client := provider.New(provider.Options{AllowLoopback: true,
		Policy: provider.Policy{MaxAttempts: 3, AttemptTimeout: 2 * time.Second},
		Sleep:  func(ctx context.Context, _ time.Duration) error { return ctx.Err() }})
	return &world{t: t, tbl: db, sec: sec, org: uuid.NewString(), user: uuid.NewString(),
		engine: &judge.Engine{Table: db, Secrets: sec, Client: client}}
}

// integrate stores an integration of the user with its credentials, as a PUT would.
func (w *world) integrate(provider string, settings map[string]any, cr credentials.Set, disabled bool) store.Integration {
	w.t.Helper()
	now := time.Now().UTC().Truncate(time.Microsecond)
	in := store.Integration{ID: uuid.NewString(), OrgID: w.org, OwnerID: w.user, Provider: provider, Name: provider,
		Settings: settings, Revision: uuid.NewString(), IsDisabled: disabled, CreatedAt: now, UpdatedAt: now}
	value, err := credentials.Encode(in.Revision, cr)
	if err != nil {
		w.t.Fatal(err)
	}
	if in.SecretRef, err = w.sec.Put(context.Background(), credentials.SecretName(in.ID), value, nil); err != nil {
		w.t.Fatal(err)
	}
	if err := store.CreateIntegration(context.Background(), w.tbl, in); err != nil {
		w.t.Fatal(err)
	}
	return in
}

// custom stores a custom integration aimed at base with an API key.
func (w *world) custom(base string, models ...string) store.Integration {
	ms := make([]any, len(models))
	for i, m := range models {
		ms[i] = m
	}
	return w.integrate("custom", map[string]any{"endpoint": base, "authentication_type": "api_key", "api_key_header": "X-Api-Key",
		"models": ms, "model_prices": map[string]any{"judge-1": map[string]any{"input_per_million": int64(2), "output_per_million": 8.5}}},
		credentials.Set{APIKeyValue: secrets.NewValueString(canary)}, false)
}

func ptr[T any](v T) *T { return &v }

// decision is an llm scorer with a decision version.
func decision(outputType, question string, options store.AnswerOptions, judges int64, model string) store.Scorer {
	v := &store.ScorerVersion{ID: uuid.NewString(), Version: 1, Kind: store.VersionDecision, ModelName: ptr(model),
		NumJudges: ptr(judges), OutputType: ptr(outputType),
		Decision: &store.DecisionScorer{Question: question, AnswerOptions: options}}
	return store.Scorer{ID: uuid.NewString(), Name: "decision", ScorerType: "llm", OutputType: ptr(outputType), LatestVersion: v}
}

func (w *world) request(s store.Scorer) judge.Request {
	return judge.Request{OrgID: w.org, UserID: w.user, Scorer: s,
		Content: judge.Content{Input: "What is 2+2?", Output: "4"}, Fields: map[string]string{"project_id": "p-1"}}
}
