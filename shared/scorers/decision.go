package scorers

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/google/uuid"

	"github.com/evalobs/evalapi/shared/auth"
	"github.com/evalobs/evalapi/shared/base"
	"github.com/evalobs/evalapi/shared/httpapi"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/validate"
)

// createDecisionVersion is operation 8: POST /v2/scorers/{scorer_id}/version/decision.
//
// The version number comes from the scorer's counter: read the scorer (with its latest
// version), then one transaction moves the counter from n to n+1 and puts version n+1. A writer that
// lost the race for n+1 reads again and retries with the new latest version (its defaults
// may have changed), so concurrent calls get 1, 2, 3... with no gap or repeat.
func (h *handlers) createDecisionVersion(w http.ResponseWriter, r *http.Request) error {
	call, err := base.Open(r, base.Opening{Body: true}, base.ByID("scorer_id", 4, readDecisionRequest))
	if err != nil {
		return err
	}
	c, req, ctx := call.Caller, call.In.Req, r.Context()
	s, err := h.loadScorer(ctx, c, call.In.ID)
	if err != nil {
		return err
	}
	if err := auth.RequireWrite(ctx); err != nil {
		return err
	}
	v, err := h.appendVersion(ctx, c, s, func(rules *validate.Errors, s store.Scorer) store.ScorerVersion {
		options := checkScorerRules(rules, s.ID, s, req, s.LatestVersion)
		return newVersion(c, s, s.LatestVersion, req, options, h.Stamp())
	})
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, versionOut(v))
	return nil
}

// appendVersion stores the next version of scorer s (as just read), which build makes
// from the scorer after checking the request against it (reporting problems in rules); it
// reads the scorer again and retries, paced by h.Retry, when another writer took the number.
func (h *handlers) appendVersion(ctx context.Context, c auth.Caller, s store.Scorer, build func(rules *validate.Errors, s store.Scorer) store.ScorerVersion) (store.ScorerVersion, error) {
	for attempt, started := 1, time.Now(); ; attempt++ {
		// The rules run again on every attempt: what a request leaves out comes from the
		// latest version, which the winner of the race has just replaced.
		rules := validate.New()
		next := build(rules, s)
		if err := rules.Err(); err != nil {
			return store.ScorerVersion{}, err
		}
		v, err := store.PutNextScorerVersion(ctx, h.Table, s, next)
		switch {
		case err == nil:
			return v, nil
		case !errors.Is(err, store.ErrVersionRace):
			return store.ScorerVersion{}, err
		case attempt >= h.Retry.Attempts:
			return store.ScorerVersion{}, httpapi.Unavailable("Too many concurrent versions of this scorer, retry later")
		}
		if err := h.Retry.wait(ctx, attempt, time.Since(started)); err != nil {
			return store.ScorerVersion{}, fmt.Errorf("retry version of scorer %s: %w", s.ID, err)
		}
		started = time.Now()
		if s, err = h.loadScorer(ctx, c, s.ID); err != nil {
			return store.ScorerVersion{}, err
		}
	}
}

// loadScorer reads the caller's scorer (which carries its latest version), or answers 404.
func (h *handlers) loadScorer(ctx context.Context, c auth.Caller, id string) (store.Scorer, error) {
	s, err := store.GetScorer(ctx, h.Table, c.OrgID, id)
	if errors.Is(err, store.ErrNotFound) {
		return store.Scorer{}, httpapi.NotFound("Scorer")
	}
	return s, err
}

// newVersion builds the version to store: what the request sent, else the latest version's
// value, else the scorer's default. The node types and output and input types are the
// scorer's own.
func newVersion(c auth.Caller, s store.Scorer, latest *store.ScorerVersion, req decisionRequest, options store.AnswerOptions, now time.Time) store.ScorerVersion {
	var prev store.ScorerVersion
	if latest != nil {
		prev = *latest
	}
	cot := first(req.cotEnabled, prev.CotEnabled, s.Defaults.CotEnabled)
	return store.ScorerVersion{
		ID:                 uuid.NewString(),
		OrgID:              c.OrgID,
		Kind:               store.VersionDecision,
		ModelName:          first(req.modelName, prev.ModelName, s.Defaults.ModelName),
		NumJudges:          first(req.numJudges, prev.NumJudges, s.Defaults.NumJudges),
		CotEnabled:         cot,
		ScoreableNodeTypes: s.ScoreableNodeTypes,
		OutputType:         s.OutputType,
		InputType:          s.InputType,
		ChainPollTemplate:  chainPollTemplate(req.question, deref(s.OutputType), options, cot != nil && *cot),
		Decision: &store.DecisionScorer{ID: uuid.NewString(), OrganizationID: c.OrgID, Question: req.question,
			AnswerOptions: options, CreatedAt: now, CreatedBy: c.UserID},
		CreatedBy: c.UserID,
		CreatedAt: now,
		UpdatedAt: now,
	}
}

// first returns the first value that is set.
func first[T any](vs ...*T) *T {
	for _, v := range vs {
		if v != nil {
			return v
		}
	}
	return nil
}
