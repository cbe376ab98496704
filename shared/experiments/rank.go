package experiments

import "github.com/evalobs/evalapi/shared/store"

// systemMetrics are the run summary's metrics that no scorer produced; they do not rank.
var systemMetrics = map[string]bool{"latency_ms": true, "total_tokens": true, "total_cost": true}

// rankExperiments places each experiment among the project's experiments by its scorer
// metrics, treating a higher average as better:
//
//   - for each scorer metric, an experiment's average is normalized to [0, 1] over the
//     experiments holding that metric: (avg - min) / (max - min), or 1 when all are equal;
//   - ranking_score is the mean of the experiment's normalized averages; an experiment
//     with no numeric scorer metric is not ranked (score, rank and winner null);
//   - rank is 1 + the number of ranked experiments with a strictly higher score (ties
//     share a rank);
//   - winner is true for rank 1 when at least two experiments are ranked, false for every
//     other ranked experiment.
//
// summaries is keyed by experiment id; the result is too.
func rankExperiments(ids []string, summaries map[string]store.RunSummary) map[string]rankResult {
	averages := map[string]map[string]float64{} // experiment -> metric -> average
	lo, hi := map[string]float64{}, map[string]float64{}
	for _, id := range ids {
		for name, st := range summaries[id].Metrics {
			if systemMetrics[name] {
				continue
			}
			avg := aggregatesOf(st).Average
			if avg == nil {
				continue
			}
			if averages[id] == nil {
				averages[id] = map[string]float64{}
			}
			averages[id][name] = *avg
			if m, ok := lo[name]; !ok || *avg < m {
				lo[name] = *avg
			}
			if m, ok := hi[name]; !ok || *avg > m {
				hi[name] = *avg
			}
		}
	}
	scores := map[string]float64{}
	for id, metrics := range averages {
		var total float64
		for name, avg := range metrics {
			norm := 1.0
			if hi[name] > lo[name] {
				norm = (avg - lo[name]) / (hi[name] - lo[name])
			}
			total += norm
		}
		scores[id] = total / float64(len(metrics))
	}
	out := make(map[string]rankResult, len(ids))
	for _, id := range ids {
		s, ok := scores[id]
		if !ok {
			out[id] = rankResult{}
			continue
		}
		rank := int64(1)
		for _, other := range scores {
			if other > s {
				rank++
			}
		}
		winner := rank == 1 && len(scores) >= 2
		out[id] = rankResult{score: &s, rank: &rank, winner: &winner}
	}
	return out
}
