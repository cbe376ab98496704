package scorers

import (
	"context"
	"fmt"
	"time"

	"github.com/evalobs/evalapi/shared/store"
)

// ExampleScorerID is the scorer the sample events under events/scorers version: an llm
// scorer with categorical output. The event runner's fixture calls SeedExample.
const ExampleScorerID = "4a6c8e0f-2b4d-4f6a-8c0e-2a4c6e8f0b1d"

// SeedExample stores the example scorer of organization orgID, created by userID, without
// versions yet.
func SeedExample(ctx context.Context, t store.Table, orgID, userID string, now time.Time) error {
	now = now.UTC().Truncate(time.Microsecond)
	output, input := "categorical", "trace_io_only"
	model, judges := "gpt-4o-mini", int64(3)
	s := store.Scorer{ID: ExampleScorerID, OrgID: orgID, Name: "fixture-tone", ScorerType: "llm",
		Description: "Classifies the tone of a response", Tags: []string{"fixture"},
		Defaults:   store.ScorerDefaults{ModelName: &model, NumJudges: &judges},
		OutputType: &output, InputType: &input, ScoreableNodeTypes: []string{"llm"},
		CreatedBy: userID, CreatedAt: now, UpdatedAt: now}
	if err := store.CreateScorer(ctx, t, s); err != nil {
		return fmt.Errorf("example scorer: %w", err)
	}
	return nil
}
