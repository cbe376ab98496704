package signals

import (
	"slices"
	"strings"
	"unicode"

	"github.com/evalobs/evalapi/shared/store"
)

// Change of a finding relative to the previous run.
const (
	ChangeNew       = "new"
	ChangeRecurring = "recurring"
)

// FindingKey is the identity of a finding across runs: its kind and its normalised title.
// The title is lower-cased, every run of digits becomes "#" (counts and durations change
// from run to run: "12 timeouts" and "31 timeouts" are one finding), and every run of
// characters that are neither letters, digits nor "#" becomes one space, trimmed.
func FindingKey(kind, title string) string {
	var b strings.Builder
	space, digit := false, false
	for _, r := range strings.ToLower(title) {
		switch {
		case unicode.IsDigit(r):
			if !digit {
				if space && b.Len() > 0 {
					b.WriteByte(' ')
				}
				b.WriteByte('#')
			}
			space, digit = false, true
		case unicode.IsLetter(r) || r == '#':
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			b.WriteRune(r)
			space, digit = false, false
		default:
			space, digit = true, false
		}
	}
	return kind + "|" + b.String()
}

// severityRank orders severities, LOW lowest.
func severityRank(s string) int { return slices.Index(Severities, s) }

// mergeSame folds findings of one answer with the same key into the first: trace ids joined
// (bounded), the highest severity kept.
func mergeSame(ps []proposed) []proposed {
	var out []proposed
	at := map[string]int{}
	for _, p := range ps {
		k := FindingKey(p.Kind, p.Title)
		i, ok := at[k]
		if !ok {
			at[k] = len(out)
			out = append(out, p)
			continue
		}
		q := &out[i]
		for _, id := range p.TraceIDs {
			if !slices.Contains(q.TraceIDs, id) && len(q.TraceIDs) < maxTraceIDs {
				q.TraceIDs = append(q.TraceIDs, id)
			}
		}
		if severityRank(p.Severity) > severityRank(q.Severity) {
			q.Severity = p.Severity
		}
	}
	return out
}

// diffResult is how a run's findings compare with the previous run's.
type diffResult struct {
	previous map[int]store.SignalsFinding // index in the new findings -> the previous finding it repeats
	resolved []store.Resolved
}

// diff matches the new findings with the previous run's by FindingKey: a match is recurring
// (its previous finding given), a previous finding no new one matches is resolved.
func diff(current []proposed, previous []store.SignalsFinding) diffResult {
	prevByKey := map[string]store.SignalsFinding{}
	for _, f := range previous {
		prevByKey[FindingKey(f.Kind, f.Title)] = f
	}
	d := diffResult{previous: map[int]store.SignalsFinding{}}
	matched := map[string]bool{}
	for i, p := range current {
		k := FindingKey(p.Kind, p.Title)
		if f, ok := prevByKey[k]; ok {
			d.previous[i] = f
			matched[k] = true
		}
	}
	for _, f := range previous {
		if k := FindingKey(f.Kind, f.Title); !matched[k] {
			matched[k] = true // a previous run's duplicates resolve once
			d.resolved = append(d.resolved, store.Resolved{FindingID: f.ID, Kind: f.Kind, Title: f.Title, Severity: f.Severity})
		}
	}
	return d
}
