package records

// The system metrics the write model folds into the run summary and the roll-ups, by the
// names searches report them under.
const (
	MetricLatency     = "latency_ms"
	MetricTotalTokens = "total_tokens"
	MetricTotalCost   = "total_cost"
)
