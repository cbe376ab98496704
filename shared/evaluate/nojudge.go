package evaluate

import "context"

// NoJudge answers every task with configuration_error: the judge of a build that has no
// LLM judge linked (hosts and tests that dispatch without judging).
type NoJudge struct{}

// Judge implements Judge.
func (NoJudge) Judge(context.Context, Task) Verdict {
	return Verdict{ErrorType: ErrConfiguration, ErrorMessage: "no judge is configured in this deployment"}
}
