package app

import (
	"context"
	"log/slog"
	"net/http"
	"os"

	"github.com/aws/aws-lambda-go/events"
	"github.com/awslabs/aws-lambda-go-api-proxy/httpadapter"
)

// ProxyFunc is the Lambda handler of an HTTP API (payload v2) function.
type ProxyFunc func(ctx context.Context, event events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error)

// Proxy adapts h to API Gateway HTTP API events. It is the handler lambda.Start runs and
// the one infra/invoke calls. ProxyWithContext, not Proxy: it hands the gateway's request
// context to h through ctx instead of JSON-encoding it into a header on every request.
func Proxy(h http.Handler) ProxyFunc {
	return httpadapter.NewV2(h).ProxyWithContext
}

// Handler is the Lambda handler of an HTTP API function, which its main gives to
// lambda.Start: it builds the dependencies once per cold start and mounts register on a
// router. (The mains call lambda.Start themselves so that this package, which the local
// host links too, does not bring the Lambda runtime client and its net/rpc and gob
// initialisers into the host.)
func Handler(register Register) ProxyFunc {
	return Proxy(NewRouter(ColdStart(), register))
}

// ColdStart reads the configuration and builds the cloud dependencies of a function, for
// the worker functions' handlers (shared/app/workers, shared/app/signalscloud). An error is
// logged and ends the process, which Lambda reports as an init failure.
func ColdStart() Deps {
	cfg, err := ReadConfig(Cloud, os.Getenv)
	log := LambdaLogger(cfg.LogLevel) // INFO when the configuration failed
	var d Deps
	if err == nil {
		d, err = NewCloud(context.Background(), cfg, log, os.Getenv)
	}
	for _, hook := range coldStartHooks {
		if err == nil {
			err = hook(&d, os.Getenv)
		}
	}
	if err != nil {
		FailInit(log, err)
	}
	return d
}

// FailInit logs err as the init failure and ends the process, which Lambda reports as an init
// error. The worker functions' handlers (shared/app/workers, shared/app/signalscloud) call it
// for what they build after ColdStart, so that every function fails its start alike.
func FailInit(log *slog.Logger, err error) {
	log.Error("init failed", "error", err.Error())
	os.Exit(1)
}

var coldStartHooks []func(d *Deps, getenv func(string) string) error

// OnColdStart adds a step that ColdStart runs after building the dependencies, from a
// function's main package (an init function): it installs ports only that function needs
// (the signals API function's worker and scheduler ports, shared/app/signalscloud), so that the
// other functions do not link their clients. An error fails the cold start.
func OnColdStart(hook func(d *Deps, getenv func(string) string) error) {
	coldStartHooks = append(coldStartHooks, hook)
}
