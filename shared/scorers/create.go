package scorers

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/google/uuid"

	"github.com/evalobs/evalapi/shared/base"
	"github.com/evalobs/evalapi/shared/httpapi"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/validate"
)

// Bounds shared with the decision version body (SPEC-DECISIONS "Decision scorer versions").
const (
	maxShortText = 255
	maxJudges    = 10
)

// readScorerCreate reads the body of POST /v2/scorers, shaped like the original's
// CreateScorerRequest: name and scorer_type required, defaults for new versions optional.
func readScorerCreate(in *base.Input) store.Scorer {
	var s store.Scorer
	o, ok := in.Body().Required().Object()
	if !ok {
		return s
	}
	s.Name, _ = o.Get("name").Required().String(validate.MinLen(1), validate.MaxLen(maxShortText))
	// An empty label is no label (the name stands for it), as the original's default "" is.
	if l, ok := o.Get("label").Nullable().String(validate.MaxLen(maxShortText)); ok {
		s.Label = l
	}
	s.ScorerType, _ = o.Get("scorer_type").Required().Enum(store.ScorerTypes...)
	s.Description, _ = o.Get("description").String()
	s.Tags = []string{}
	if items, ok := o.Get("tags").List(); ok {
		for _, it := range items {
			tag, _ := it.String()
			s.Tags = append(s.Tags, tag)
		}
	}
	if d, ok := o.Get("defaults").Nullable().Object(); ok {
		if m, ok := d.Get("model_name").Nullable().String(validate.MinLen(1), validate.MaxLen(maxShortText)); ok {
			s.Defaults.ModelName = &m
		}
		if n, ok := d.Get("num_judges").Nullable().Int(validate.Ge(1), validate.Le(maxJudges)); ok {
			s.Defaults.NumJudges = &n
		}
		if b, ok := d.Get("cot_enabled").Nullable().Bool(); ok {
			s.Defaults.CotEnabled = &b
		}
	}
	if ot, ok := o.Get("output_type").Nullable().Enum(store.OutputTypes...); ok {
		s.OutputType = &ot
	}
	if it, ok := o.Get("input_type").Nullable().Enum(store.InputTypes...); ok {
		s.InputType = &it
	}
	s.ScoreableNodeTypes = readStrings(o.Get("scoreable_node_types"))
	return s
}

// readStrings reads a nullable list of strings.
func readStrings(v validate.Value) []string {
	items, ok := v.Nullable().List()
	if !ok {
		return nil
	}
	out := make([]string, 0, len(items))
	for _, it := range items {
		s, _ := it.String()
		out = append(out, s)
	}
	return out
}

// createScorer is POST /v2/scorers.
func (h *handlers) createScorer(w http.ResponseWriter, r *http.Request) error {
	call, err := base.Open(r, base.Opening{Body: true, Write: true}, readScorerCreate)
	if err != nil {
		return err
	}
	c, s, now := call.Caller, call.In, h.Stamp()
	s.ID, s.OrgID, s.CreatedBy, s.CreatedAt, s.UpdatedAt = uuid.NewString(), c.OrgID, c.UserID, now, now
	s.Label = store.ScorerLabel(s)
	// The label claim makes new labels unique; scorers stored before labels claimed none,
	// so their labels (their names) are compared here.
	taken, err := h.labelTaken(r.Context(), c.OrgID, s)
	if err == nil && !taken {
		err = store.CreateScorer(r.Context(), h.Table, s)
	}
	switch {
	case errors.Is(err, store.ErrNameTaken):
		return validate.Single(validate.ValueError([]any{"body", "name"}, s.Name,
			fmt.Sprintf("a scorer named '%s' already exists", s.Name)))
	case taken || errors.Is(err, store.ErrLabelTaken):
		return validate.Single(validate.ValueError([]any{"body", "label"}, s.Label,
			fmt.Sprintf("a scorer labelled '%s' already exists (labels are compared ignoring case)", s.Label)))
	case err != nil:
		return fmt.Errorf("create scorer: %w", err)
	}
	httpapi.WriteJSON(w, http.StatusOK, scorerOut(s))
	return nil
}

// labelTaken tells whether another scorer of the organization has the label of s, ignoring
// case; the name taken is store.ErrNameTaken, answered as such.
func (h *handlers) labelTaken(ctx context.Context, orgID string, s store.Scorer) (bool, error) {
	all, err := store.ListScorers(ctx, h.Table, orgID)
	if err != nil {
		return false, fmt.Errorf("read the scorers' labels: %w", err)
	}
	if slices.ContainsFunc(all, func(o store.Scorer) bool { return o.Name == s.Name }) {
		return false, store.ErrNameTaken
	}
	return slices.ContainsFunc(all, func(o store.Scorer) bool { return strings.EqualFold(store.ScorerLabel(o), s.Label) }), nil
}
