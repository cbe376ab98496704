// Package demo loads a demonstration data set into a local host's store: a project, a log
// stream with metric settings, and a day of synthetic traces with metric values and some
// scorer errors, so that the metrics search and the column catalog have something to show.
// `make seed` runs it (infra/seed), and so does `DEMO=1 make run` on the first start.
package demo

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/evalobs/evalapi/shared/records"
	"github.com/evalobs/evalapi/shared/store"
)

// Options shape the data set.
type Options struct {
	Traces   int       // traces over the day; default DefaultTraces (one every 5 s)
	End      time.Time // end of the day of traces; default now, to the minute
	Seed     uint64    // of the random values; the same seed gives the same traces
	Progress io.Writer // where the progress bar goes; nil: nowhere
}

// DefaultTraces is one trace every five seconds for a day.
const DefaultTraces = 24 * 60 * 60 / 5

// batch is how many traces one ingestion writes: the most a request may carry.
const batch = 1000

// Result names what Load created.
type Result struct {
	ProjectID, LogStreamID string
	Traces                 int
	From, To               time.Time
}

func ptr[T any](v T) *T { return &v }

// demoScorers are the demo log stream's metric settings: one scorer per kind of roll-up.
func demoScorers() []store.ScorerConfig {
	return []store.ScorerConfig{
		{ID: uuid.NewString(), Name: ptr("correctness"), ScorerType: ptr("llm"), OutputType: ptr("percentage"), RollUpMethod: ptr("average")},
		{ID: uuid.NewString(), Name: ptr("toxicity"), ScorerType: ptr("luna"), OutputType: ptr("boolean"), RollUpMethod: ptr("percentage_true")},
		{ID: uuid.NewString(), Name: ptr("tone"), ScorerType: ptr("llm"), OutputType: ptr("categorical"), RollUpMethod: ptr("category_count")},
	}
}

// Load creates the demo project of organization orgID, owned by userID, and ingests its
// traces in batches, drawing a progress bar on opts.Progress.
func Load(ctx context.Context, t store.Table, orgID, userID string, opts Options) (Result, error) {
	if opts.Traces <= 0 {
		opts.Traces = DefaultTraces
	}
	if opts.End.IsZero() {
		opts.End = time.Now()
	}
	end := opts.End.UTC().Truncate(time.Minute)
	now := time.Now().UTC().Truncate(time.Microsecond)
	p := store.Project{ID: uuid.NewString(), OrgID: orgID, Name: "demo " + now.Format("2006-01-02 15:04:05.000000"),
		CreatedBy: userID, CreatedAt: now, UpdatedAt: now}
	if err := store.CreateProject(ctx, t, p); err != nil {
		return Result{}, fmt.Errorf("demo: %w", err)
	}
	ls := store.LogStream{ID: uuid.NewString(), ProjectID: p.ID, OrgID: orgID, Name: "production", CreatedBy: userID,
		CreatedAt: now, UpdatedAt: now}
	if err := store.CreateLogStream(ctx, t, ls); err != nil {
		return Result{}, fmt.Errorf("demo: %w", err)
	}
	scorers := demoScorers()
	settings, err := store.SetMetricSettings(ctx, t, ls, &scorers, nil, now)
	if err != nil {
		return Result{}, fmt.Errorf("demo: %w", err)
	}
	run := store.Run{ID: ls.ID, ProjectID: p.ID, OrgID: orgID, Name: ls.Name, Kind: store.RunLogStream, MetricSettings: settings}

	res := Result{ProjectID: p.ID, LogStreamID: ls.ID, From: end.Add(-24 * time.Hour), To: end}
	gen := generator{rnd: rand.New(rand.NewPCG(opts.Seed, 0x5eed)), from: res.From, step: 24 * time.Hour / time.Duration(opts.Traces)}
	bar := progress{w: opts.Progress, total: opts.Traces}
	for done := 0; done < opts.Traces; {
		n := min(batch, opts.Traces-done)
		written, err := records.Ingest(ctx, t, run, gen.next(done, n), now)
		if err != nil {
			bar.finish()
			return res, fmt.Errorf("demo: traces %d to %d: %w", done, done+n, err)
		}
		done += n
		res.Traces += written
		bar.draw(done)
	}
	bar.finish()
	return res, nil
}

// progress draws "[#####.....]  50%  8,640 / 17,280 traces" on one terminal line.
type progress struct {
	w     io.Writer
	total int
}

func (b progress) draw(done int) {
	if b.w == nil {
		return
	}
	const width = 40
	filled := width * done / b.total
	fmt.Fprintf(b.w, "\r[%s%s] %3d%%  %d / %d traces", strings.Repeat("#", filled), strings.Repeat(".", width-filled),
		100*done/b.total, done, b.total)
}

func (b progress) finish() {
	if b.w != nil {
		fmt.Fprintln(b.w)
	}
}
