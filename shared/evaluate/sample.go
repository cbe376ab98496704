package evaluate

import (
	"crypto/sha256"
	"encoding/binary"
	"slices"
	"strings"

	"github.com/evalobs/evalapi/shared/store"
)

// Sampling (SPEC-DECISIONS.md, "Segment sampling"): segments are tried in their order; for a
// trace and a scorer the first segment that applies decides the rate. A segment applies when
// its filter matches the trace (no filter matches every trace), and, when llm_scorers is
// true, the scorer is an LLM scorer, and, when multimodal_scorers is true, the scorer is
// multimodal. No applicable segment (or no segments) means rate 1.

// sampleRate is the rate of scorer sc on trace tr under segments.
func sampleRate(segments []store.SegmentFilter, tr *store.Trace, sc store.ScorerConfig) float64 {
	for _, s := range segments {
		if s.LLMScorers && !isLLMScorer(sc) {
			continue
		}
		if s.MultimodalScorers && len(sc.MultimodalCapabilities) == 0 {
			continue
		}
		if s.Filter != nil && !filterMatches(*s.Filter, tr) {
			continue
		}
		return s.SampleRate
	}
	return 1
}

// sampled decides whether the trace is scored at rate: a hash of (trace id, scorer id)
// mapped to [0, 1) and compared with the rate, so a redelivery or a re-run decides the same,
// and different scorers sample independent subsets.
func sampled(traceID, scorerID string, rate float64) bool {
	if rate >= 1 {
		return true
	}
	if rate <= 0 {
		return false
	}
	return unit(traceID, scorerID) < rate
}

// unit maps (trace id, scorer id) to [0, 1) uniformly: the first 53 bits of a SHA-256.
func unit(traceID, scorerID string) float64 {
	h := sha256.New()
	h.Write([]byte(traceID))
	h.Write([]byte{0})
	h.Write([]byte(scorerID))
	var sum [sha256.Size]byte
	return float64(binary.BigEndian.Uint64(h.Sum(sum[:0]))>>11) / (1 << 53)
}

// isLLMScorer: scorers judged by an LLM (llm and preset scorers; code and luna are not).
func isLLMScorer(sc store.ScorerConfig) bool {
	switch deref(sc.ScorerType) {
	case "code", "luna":
		return false
	}
	return true
}

// filterMatches evaluates a §2.9 filter on a trace: node_name on its name, metadata on its
// user metadata, modality on its content (traces are "text": the records hold no files).
func filterMatches(f store.ScorerFilter, tr *store.Trace) bool {
	var have string
	switch f.Name {
	case store.FilterNodeName:
		have = tr.Name
	case store.FilterMetadata:
		v, ok := tr.Metadata[f.Key]
		if !ok {
			return f.Operator == "ne" || f.Operator == "not_in"
		}
		have = v
	case store.FilterModality:
		have = "text"
	}
	eq := func(a, b string) bool {
		if f.Name == store.FilterNodeName && !f.CaseSensitive {
			return strings.EqualFold(a, b)
		}
		return a == b
	}
	in := slices.ContainsFunc(f.Value.Values, func(v string) bool { return eq(have, v) })
	switch f.Operator {
	case "eq", "one_of":
		return in
	case "ne", "not_in":
		return !in
	case "contains":
		for _, v := range f.Value.Values {
			if f.CaseSensitive && strings.Contains(have, v) || !f.CaseSensitive && strings.Contains(strings.ToLower(have), strings.ToLower(v)) {
				return true
			}
		}
		return false
	}
	return false
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
