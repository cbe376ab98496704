package demo

import (
	"context"
	"fmt"
	"io"

	"github.com/evalobs/evalapi/shared/app"
	"github.com/evalobs/evalapi/shared/store"
)

// SeedOptions say how much demo Seed loads and where the API that serves it listens.
type SeedOptions struct {
	Traces int    // over the day
	Seed   uint64 // of the random values
	// BaseURL is the address of the API that will serve the demo (http://127.0.0.1:3000),
	// shown in the commands Seed prints: the host's real address, so that PORT=0 or another
	// PORT gives commands that work.
	BaseURL string
}

// Seed loads the demo for the admin (ADMIN_EMAIL, default admin@example.com) of a store
// that the caller has bootstrapped (local.Bootstrap), and says how to query it.
func Seed(ctx context.Context, d app.Deps, getenv func(string) string, opts SeedOptions, out io.Writer) error {
	email := getenv("ADMIN_EMAIL")
	if email == "" {
		email = "admin@example.com"
	}
	admin, _, err := store.UserByEmail(ctx, d.Table, email)
	if err != nil {
		return fmt.Errorf("the admin %s: %w (set ADMIN_EMAIL to the admin of this store)", email, err)
	}
	fmt.Fprintf(out, "Loading a day of %d demo traces for %s\n", opts.Traces, admin.Email)
	res, err := Load(ctx, d.Table, admin.OrgID, admin.ID, Options{Traces: opts.Traces, Seed: opts.Seed, Progress: out})
	if err != nil {
		return err
	}
	exps, err := LoadExperiments(ctx, d.Table, admin.OrgID, admin.ID, res.ProjectID)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, `Demo experiment pair on dataset %s (template %s): %s and %s. Compare them:
  curl -H "Service-API-Key: $KEY" -H "Content-Type: application/json" -d '{"experiment_ids":["%s","%s"]}' \
    %s/v2/projects/%s/experiments/compare
`, exps.DatasetID, exps.TemplateID, exps.ExperimentIDs[0], exps.ExperimentIDs[1], exps.ExperimentIDs[0], exps.ExperimentIDs[1], opts.BaseURL, res.ProjectID)
	_, err = fmt.Fprintf(out, `Demo project %s, log stream %s: %d traces from %s to %s. Try:
  curl -H "Service-API-Key: $KEY" -H "Content-Type: application/json" -d '{"log_stream_id":"%s","start_time":"%s","end_time":"%s","interval":60}' \
    %s/v2/projects/%s/metrics/search
`, res.ProjectID, res.LogStreamID, res.Traces, res.From.Format("2006-01-02T15:04Z"), res.To.Format("2006-01-02T15:04Z"),
		res.LogStreamID, res.From.Format("2006-01-02T15:04:05Z"), res.To.Format("2006-01-02T15:04:05Z"), opts.BaseURL, res.ProjectID)
	return err
}
