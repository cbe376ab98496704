package workers

import (
	"fmt"
	"strconv"
	"time"

	"github.com/evalobs/evalapi/shared/evaluate"
	"github.com/evalobs/evalapi/shared/queue"
)

// EvalConfig is the evaluation pipeline's configuration, from the environment:
//
//	EVAL_QUEUE_URL          the evaluation queue (the stream function sends to it; required there)
//	EVAL_QUIET_PERIOD       how long after its last write an incomplete trace is judged (Go duration, default 5m, at most 15m)
//	EVAL_MAX_RECEIVE_COUNT  the queue's redrive maxReceiveCount (default 5): the evaluator's last attempt writes the error
type EvalConfig struct {
	QueueURL        string
	QuietPeriod     time.Duration
	MaxReceiveCount int
}

// ReadEvalConfig reads the pipeline's variables.
func ReadEvalConfig(getenv func(string) string) (EvalConfig, error) {
	c := EvalConfig{QueueURL: getenv("EVAL_QUEUE_URL"), QuietPeriod: evaluate.DefaultQuietPeriod, MaxReceiveCount: 5}
	if s := getenv("EVAL_QUIET_PERIOD"); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil || d <= 0 || d > queue.MaxDelay {
			return c, fmt.Errorf("EVAL_QUIET_PERIOD %q: a duration in (0, 15m]", s)
		}
		c.QuietPeriod = d
	}
	if s := getenv("EVAL_MAX_RECEIVE_COUNT"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > 1000 {
			return c, fmt.Errorf("EVAL_MAX_RECEIVE_COUNT %q: an integer in [1, 1000]", s)
		}
		c.MaxReceiveCount = n
	}
	return c, nil
}
