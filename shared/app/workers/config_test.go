package workers

import (
	"testing"
	"time"
)

func TestReadEvalConfig(t *testing.T) {
	for _, tc := range []struct {
		env     map[string]string
		quiet   time.Duration
		max     int
		wantErr bool
	}{
		{map[string]string{}, 5 * time.Minute, 5, false},
		{map[string]string{"EVAL_QUIET_PERIOD": "90s", "EVAL_MAX_RECEIVE_COUNT": "3"}, 90 * time.Second, 3, false},
		{map[string]string{"EVAL_QUIET_PERIOD": "20m"}, 0, 0, true},
		{map[string]string{"EVAL_QUIET_PERIOD": "soon"}, 0, 0, true},
		{map[string]string{"EVAL_MAX_RECEIVE_COUNT": "0"}, 0, 0, true},
	} {
		c, err := ReadEvalConfig(func(k string) string { return tc.env[k] })
		if (err != nil) != tc.wantErr {
			t.Errorf("%v: err %v", tc.env, err)
			continue
		}
		if !tc.wantErr && (c.QuietPeriod != tc.quiet || c.MaxReceiveCount != tc.max) {
			t.Errorf("%v: %+v", tc.env, c)
		}
	}
}
