package evaluate

import "github.com/evalobs/evalapi/shared/store"

// errorCodes are the StandardError codes of the verdicts' error types (the HTTP status each
// type stands for), so that the metrics search counts them per code.
var errorCodes = map[string]int64{
	ErrRateLimit:      429,
	ErrLLMAPI:         502,
	ErrCredentials:    401,
	ErrDataValidation: 422,
	ErrConfiguration:  400,
}

// metricValue is the verdict as the record holds it.
func metricValue(v Verdict) store.MetricValue {
	if v.ErrorType == "" {
		switch {
		case v.Value.Bool != nil:
			return store.MetricValue{Bool: v.Value.Bool, Explanation: v.Explanation}
		case v.Value.Number != nil:
			f := v.Value.Number.Float64()
			return store.MetricValue{Number: &f, Explanation: v.Explanation}
		case v.Value.Label != nil:
			return store.MetricValue{Category: v.Value.Label, Explanation: v.Explanation}
		}
		v.ErrorType, v.ErrorMessage = ErrDataValidation, "the judge returned no value"
	}
	code, ok := errorCodes[v.ErrorType]
	if !ok {
		code = 500
	}
	msg := v.ErrorMessage
	if msg == "" {
		msg = v.ErrorType
	}
	return store.MetricValue{Error: &store.ScorerError{Code: code, Message: msg, Severity: "medium", ErrorType: v.ErrorType,
		ErrorGroup: "scorer", Retriable: v.Retryable}}
}
