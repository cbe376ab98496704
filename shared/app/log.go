package app

import (
	"context"
	"io"
	"log/slog"

	"github.com/aws/aws-lambda-go/lambdacontext"
)

// LambdaLogger logs in Lambda's JSON format (timestamp, level, message, requestId of the
// invocation) through aws-lambda-go's handler, at cfg.LogLevel. Lambda's own
// ApplicationLogLevel filters again downstream; the template sets both from one parameter.
func LambdaLogger(level slog.Level) *slog.Logger {
	return slog.New(&levelHandler{Handler: lambdacontext.NewLogHandler(), level: level})
}

// JSONLogger logs JSON lines to w with Lambda's key names, so that one log query works for
// the local hosts and the cloud.
func JSONLogger(w io.Writer, level slog.Level) *slog.Logger {
	return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{
		Level:       level,
		ReplaceAttr: lambdacontext.ReplaceAttr,
	}))
}

// levelHandler puts LOG_LEVEL in front of a handler that takes its level from elsewhere
// (lambdacontext's reads AWS_LAMBDA_LOG_LEVEL, which is unset outside Lambda).
type levelHandler struct {
	slog.Handler
	level slog.Level
}

func (h *levelHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= h.level }

func (h *levelHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &levelHandler{Handler: h.Handler.WithAttrs(attrs), level: h.level}
}

func (h *levelHandler) WithGroup(name string) slog.Handler {
	return &levelHandler{Handler: h.Handler.WithGroup(name), level: h.level}
}
