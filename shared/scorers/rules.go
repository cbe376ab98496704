package scorers

import (
	"fmt"
	"slices"
	"strings"

	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/validate"
)

// checkScorerRules applies the rules of operation 8 that need the stored scorer
// (SPEC-DECISIONS "Decision scorer versions"): the scorer is an llm scorer, the fields sent
// to match it do, and the answer options fit its output type. It returns the answer options
// to store; latest (nil when the scorer has no version) supplies them when none are sent.
func checkScorerRules(errs *validate.Errors, scorerID string, s store.Scorer, req decisionRequest, latest *store.ScorerVersion) store.AnswerOptions {
	if s.ScorerType != "llm" {
		errs.Add(validate.ValueError([]any{"path", "scorer_id"}, scorerID,
			fmt.Sprintf("scorer %s is a %s scorer; decision versions need an llm scorer", scorerID, s.ScorerType)))
	}
	if req.scoreableNodeTypes != nil && !sameSet(req.scoreableNodeTypes, s.ScoreableNodeTypes) {
		errs.Add(validate.ValueError([]any{"body", "scoreable_node_types"}, req.rawNodeTypes,
			"scoreable_node_types must match the scorer's "+pyList(s.ScoreableNodeTypes)))
	}
	options := answerOptions(errs, deref(s.OutputType), req, latest)
	if req.outputType != nil && !equalPtr(req.outputType, s.OutputType) {
		errs.Add(validate.ValueError([]any{"body", "output_type"}, *req.outputType, mismatch("output_type", s.OutputType)))
	}
	if req.inputType != nil && !equalPtr(req.inputType, s.InputType) {
		errs.Add(validate.ValueError([]any{"body", "input_type"}, *req.inputType, mismatch("input_type", s.InputType)))
	}
	return options
}

// answerOptions checks the options against the scorer's output type and shapes them for
// storage: labels for categorical, multilabel and boolean; decision levels for discrete;
// nothing for every other type.
func answerOptions(errs *validate.Errors, outputType string, req decisionRequest, latest *store.ScorerVersion) store.AnswerOptions {
	loc := []any{"body", "answer_options"}
	labels := req.answerOptions
	if !req.optionsSent && latest != nil && latest.Decision != nil {
		labels = latest.Decision.AnswerOptions.Names()
	}
	kind := outputType
	if kind == "" {
		kind = "scorer without an output type"
	} else {
		kind += " scorer"
	}
	switch outputType {
	case "categorical", "multilabel", "discrete":
		if !distinct(errs, loc, labels, req.optionsSent) {
			return store.AnswerOptions{}
		}
		if len(labels) < 2 {
			errs.Add(validate.ValueError(loc, req.rawOptions, fmt.Sprintf("a %s needs at least 2 distinct answer options", kind)))
			return store.AnswerOptions{}
		}
		if outputType != "discrete" {
			return store.AnswerOptions{Labels: labels}
		}
		levels := make([]store.DecisionLevel, len(labels))
		for i, l := range labels {
			levels[i] = store.DecisionLevel{Label: l, Value: int64(i)}
		}
		return store.AnswerOptions{Levels: levels}
	case "boolean":
		if labels == nil {
			return store.AnswerOptions{}
		}
		if !distinct(errs, loc, labels, req.optionsSent) {
			return store.AnswerOptions{}
		}
		if len(labels) != 2 {
			errs.Add(validate.ValueError(loc, req.rawOptions, "a boolean scorer takes exactly 2 distinct answer options"))
			return store.AnswerOptions{}
		}
		return store.AnswerOptions{Labels: labels}
	}
	if req.optionsSent {
		errs.Add(validate.ValueError(loc, req.rawOptions, fmt.Sprintf("a %s takes no answer options", kind)))
	}
	return store.AnswerOptions{}
}

// distinct records a problem at each label that repeats an earlier one; only labels the
// request sent can be wrong (stored ones passed these rules when they were stored).
func distinct(errs *validate.Errors, loc []any, labels []string, sent bool) bool {
	ok := true
	for i, l := range labels {
		if slices.Contains(labels[:i], l) && sent {
			errs.Add(validate.ValueError(validate.At(loc, i), l, fmt.Sprintf("answer option '%s' is listed twice", l)))
			ok = false
		}
	}
	return ok
}

func sameSet(a, b []string) bool {
	x, y := slices.Clone(a), slices.Clone(b)
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(slices.Compact(x), slices.Compact(y))
}

func equalPtr(a, b *string) bool { return a != nil && b != nil && *a == *b }

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// pyList prints a list the way the messages of the original service do.
func pyList(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = "'" + x + "'"
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// mismatch words a field that must equal the scorer's: its value, or that it has none.
func mismatch(field string, scorers *string) string {
	if scorers == nil {
		return field + " must not be sent: the scorer has no " + field
	}
	return field + " must match the scorer's '" + *scorers + "'"
}
