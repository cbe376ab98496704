package workers

import (
	"log/slog"
	"strings"
	"testing"

	"github.com/evalobs/evalapi/shared/app"
)

// TestCloudStreamConfig: the stream function's start fails on the settings its main used to
// check (the evaluation settings, the AWS variables and the queue URL when a queue is named)
// and needs no queue when none is named.
func TestCloudStreamConfig(t *testing.T) {
	aws := map[string]string{"AWS_REGION": "eu-west-1", "AWS_ACCESS_KEY_ID": "id", "AWS_SECRET_ACCESS_KEY": "secret"}
	with := func(env map[string]string, kv ...string) map[string]string {
		out := map[string]string{}
		for k, v := range env {
			out[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			out[kv[i]] = kv[i+1]
		}
		return out
	}
	// Building the consumer touches no dependency (apptest's would import this package).
	d := app.Deps{Log: slog.New(slog.DiscardHandler)}
	for _, tc := range []struct {
		name    string
		env     map[string]string
		wantErr string
	}{
		{"no queue", nil, ""},
		{"queue", with(aws, "EVAL_QUEUE_URL", "https://sqs.eu-west-1.amazonaws.com/123456789012/eval"), ""},
		{"bad quiet period", with(aws, "EVAL_QUIET_PERIOD", "20m"), "EVAL_QUIET_PERIOD"},
		{"queue without AWS variables", with(nil, "EVAL_QUEUE_URL", "https://sqs.eu-west-1.amazonaws.com/1/eval"), "AWS_REGION"},
		{"relative queue URL", with(aws, "EVAL_QUEUE_URL", "eval"), "not an absolute URL"},
	} {
		c, err := cloudStream(d, func(k string) string { return tc.env[k] })
		switch {
		case tc.wantErr == "" && (err != nil || c == nil):
			t.Errorf("%s: %v", tc.name, err)
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("%s: error %v, want one naming %s", tc.name, err, tc.wantErr)
		}
	}
}
