package demo

import (
	"context"
	"fmt"
	"hash/fnv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/evalobs/evalapi/shared/exprun"
	"github.com/evalobs/evalapi/shared/records"
	"github.com/evalobs/evalapi/shared/store"
)

// The demo's experiment pair: a dataset of capital-city questions, a prompt template with two
// versions, and two finished experiments (one per version and model) to compare. The rows
// are answered by a deterministic stand-in model and scored by a stand-in scorer: demo data,
// no provider is called.

// demoRows is the size of the demo dataset.
const demoRows = 50

var demoCountries = []string{"France", "Japan", "Brazil", "Kenya", "Canada", "India", "Norway", "Chile", "Egypt", "Vietnam"}
var demoCapitals = []string{"Paris", "Tokyo", "Brasília", "Nairobi", "Ottawa", "New Delhi", "Oslo", "Santiago", "Cairo", "Hanoi"}

// ExperimentsResult names the experiment pair.
type ExperimentsResult struct {
	DatasetID, TemplateID string
	ExperimentIDs         [2]string
}

// LoadExperiments creates the dataset, the template and the two experiments in project
// projectID, and runs both to the end in-process.
func LoadExperiments(ctx context.Context, t store.Table, orgID, userID, projectID string) (ExperimentsResult, error) {
	now := time.Now().UTC().Truncate(time.Microsecond)
	var res ExperimentsResult
	d := store.Dataset{ID: uuid.NewString(), OrgID: orgID, ProjectID: projectID, Name: "demo capitals " + now.Format("15:04:05.000"),
		ColumnNames: []string{"input", "output", "region"}, CreatedBy: userID, CreatedAt: now}
	rows := make([]store.NewDatasetRow, demoRows)
	for i := range rows {
		c := i % len(demoCountries)
		rows[i] = store.NewDatasetRow{RowID: uuid.NewString(), Values: []any{
			fmt.Sprintf("What is the capital of %s? (%d)", demoCountries[c], i), demoCapitals[c], []string{"europe", "asia", "americas", "africa"}[c%4]}}
	}
	owner := store.DatasetCollaborator{ID: uuid.NewString(), DatasetID: d.ID, OrgID: orgID, UserID: userID, Role: store.DatasetOwner, CreatedAt: now}
	if _, err := store.CreateDataset(ctx, t, d, owner, rows); err != nil {
		return res, fmt.Errorf("demo experiments: %w", err)
	}
	res.DatasetID = d.ID
	v0 := []store.PromptMessage{{Role: "user", Content: "{{input}}"}}
	v1 := []store.PromptMessage{{Role: "system", Content: "Answer with the city name only. Region: {{region}}."}, {Role: "user", Content: "{{input}}"}}
	p := store.PromptTemplate{ID: uuid.NewString(), ProjectID: projectID, OrgID: orgID, Name: "capitals", CreatedBy: userID, CreatedAt: now, UpdatedAt: now}
	first := store.PromptTemplateVersion{ID: uuid.NewString(), Template: anyMessages(v0), CreatedBy: userID, CreatedAt: now}
	p, _, err := store.CreatePromptTemplate(ctx, t, p, first)
	if err != nil {
		return res, fmt.Errorf("demo experiments: %w", err)
	}
	second := store.PromptTemplateVersion{ID: uuid.NewString(), Template: anyMessages(v1), CreatedBy: userID, CreatedAt: now}
	if _, err := store.PutNextPromptVersion(ctx, t, p, second, now); err != nil {
		return res, fmt.Errorf("demo experiments: %w", err)
	}
	res.TemplateID = p.ID
	scorers := []store.ScorerConfig{{ID: uuid.NewString(), Name: ptr("correctness")}, {ID: uuid.NewString(), Name: ptr("conciseness")}}
	q := &heldQueue{}
	svc := &exprun.Service{Table: t, Queue: q}
	w := &exprun.Worker{Table: t, Model: demoModel{}, Scoring: demoScoring{t: t, scorers: scorers},
		Prices: demoPrices{}, Traces: records.RunnerTraces{Table: t}}
	for i, run := range []struct {
		name, model string
		version     int64
		msgs        []store.PromptMessage
	}{{"capitals v0 / demo-small", "demo-small", 0, v0}, {"capitals v1 / demo-large", "demo-large", 1, v1}} {
		e := store.Experiment{ID: uuid.NewString(), ProjectID: projectID, OrgID: orgID, Name: run.name, TaskType: 16,
			CreatedBy: userID, CreatedAt: now, UpdatedAt: now, PromptModel: &run.model, Trigger: true,
			Dataset:        &store.ExperimentDataset{DatasetID: d.ID, Name: d.Name},
			Prompt:         &store.ExperimentPrompt{PromptTemplateID: p.ID, VersionIndex: run.version, Name: p.Name},
			PromptMessages: run.msgs, PromptRunSettings: map[string]any{"temperature": 0.0, "max_tokens": int64(32)}}
		e.Scorers = scorers
		if err := store.CreateExperiment(ctx, t, e); err != nil {
			return res, fmt.Errorf("demo experiments: %w", err)
		}
		if _, err := svc.Start(ctx, exprun.StartRequest{UserID: userID, Experiment: e, Messages: run.msgs}); err != nil {
			return res, fmt.Errorf("demo experiments: %w", err)
		}
		res.ExperimentIDs[i] = e.ID
	}
	for _, m := range q.bodies {
		if err := w.HandleChunk(ctx, m); err != nil {
			return res, fmt.Errorf("demo experiments: %w", err)
		}
	}
	return res, nil
}

func anyMessages(msgs []store.PromptMessage) []any {
	out := make([]any, len(msgs))
	for i, m := range msgs {
		out[i] = map[string]any{"role": m.Role, "content": m.Content}
	}
	return out
}

type heldQueue struct{ bodies [][]byte }

func (q *heldQueue) Send(_ context.Context, bodies [][]byte) error {
	q.bodies = append(q.bodies, bodies...)
	return nil
}

// demoModel answers the capital for the country it finds, the small model wordily and
// wrong on every seventh question, the large one tersely.
type demoModel struct{}

func (demoModel) Complete(_ context.Context, c exprun.Completion) (exprun.Answer, error) {
	q := c.Messages[len(c.Messages)-1].Content
	answer := "I am not sure."
	for i, country := range demoCountries {
		if strings.Contains(q, country) {
			answer = demoCapitals[i]
		}
	}
	h := fnv.New32a()
	h.Write([]byte(q))
	if c.ModelName == "demo-small" {
		if h.Sum32()%7 == 0 {
			answer = "Probably " + demoCapitals[(h.Sum32()/7)%uint32(len(demoCapitals))]
		}
		answer = "The capital is " + answer + ", a large city with a long history."
	}
	return exprun.Answer{Text: answer, InputTokens: int64(len(q)/4 + 3), OutputTokens: int64(len(answer)/4 + 1), FinishReason: "stop", Provider: "demo"}, nil
}

// demoScoring scores correctness (the expected capital is in the answer) and conciseness
// (shorter is better).
type demoScoring struct {
	t       store.Table
	scorers []store.ScorerConfig
}

func (s demoScoring) Score(ctx context.Context, req exprun.ScoreRequest) error {
	for _, id := range req.TraceIDs {
		claim, err := s.t.Get(ctx, store.RecordClaimKey(req.RunID, id), true)
		if err != nil {
			return err
		}
		sk, _ := claim["record_sk"].(string)
		it, err := s.t.Get(ctx, store.Key{PK: "RUN#" + req.RunID, SK: sk}, true)
		if err != nil {
			return err
		}
		var tr store.Trace
		if err := store.DecodeTrace(it, &tr); err != nil {
			return err
		}
		if err := store.DecodeTraceContent(it, &tr); err != nil {
			return err
		}
		out := tr.Output.Text()
		correct, concise := 0.0, 1.0/(1.0+float64(len(out))/20)
		if tr.DatasetOutput != nil && strings.Contains(out, *tr.DatasetOutput) && !strings.HasPrefix(strings.TrimPrefix(out, "The capital is "), "Probably") {
			correct = 1
		}
		m := map[string]store.MetricValue{*s.scorers[0].Name: {Number: &correct}, *s.scorers[1].Name: {Number: &concise}}
		if err := records.SetTraceMetrics(ctx, s.t, req.RunID, id, m, time.Now().UTC()); err != nil {
			return err
		}
	}
	return nil
}

// demoPrices are made-up prices per million tokens.
type demoPrices struct{}

func (demoPrices) Price(_ context.Context, _, _, model string) (float64, float64, bool) {
	if model == "demo-large" {
		return 2.5, 10, true
	}
	return 0.15, 0.6, true
}
