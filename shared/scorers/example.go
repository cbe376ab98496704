package scorers

import (
	"context"
	"fmt"
	"time"

	"github.com/evalobs/evalapi/shared/store"
)

// The scorers the sample events under events/scorers version: an llm scorer with
// categorical output, a code scorer and a preset scorer. The event runner's fixture calls
// SeedExample.
const (
	ExampleScorerID       = "4a6c8e0f-2b4d-4f6a-8c0e-2a4c6e8f0b1d"
	ExampleCodeScorerID   = "5b7d9f1a-3c5e-4b7d-9f1a-3c5e7b9d1f2a"
	ExamplePresetScorerID = "6c8e0a2b-4d6f-4c8e-8a2b-4d6f8c0e2a3b"
	// ExamplePresetVersionID is the preset scorer's version 1.
	ExamplePresetVersionID = "7d9f1b3c-5e7a-4d9f-9b3c-5e7a9d1f3b4c"
)

// SeedExample stores the example scorers of organization orgID, created by userID, without
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
	for _, other := range []store.Scorer{
		{ID: ExampleCodeScorerID, Name: "fixture-length", ScorerType: "code", Tags: []string{"fixture"}},
		{ID: ExamplePresetScorerID, Name: "fixture-completeness", ScorerType: "preset", Tags: []string{}},
	} {
		other.OrgID, other.ScoreableNodeTypes, other.CreatedBy, other.CreatedAt, other.UpdatedAt = orgID, []string{"llm"}, userID, now, now
		if err := store.CreateScorer(ctx, t, other); err != nil {
			return fmt.Errorf("example scorer: %w", err)
		}
	}
	// The preset scorer has a first version, to be read.
	preset, err := store.GetScorer(ctx, t, orgID, ExamplePresetScorerID)
	if err == nil {
		_, err = store.PutNextScorerVersion(ctx, t, preset, store.ScorerVersion{ID: ExamplePresetVersionID, OrgID: orgID,
			Kind: store.VersionPreset, ModelName: &model, ScoreableNodeTypes: preset.ScoreableNodeTypes,
			CreatedBy: userID, CreatedAt: now, UpdatedAt: now})
	}
	if err != nil {
		return fmt.Errorf("example scorer version: %w", err)
	}
	return nil
}
