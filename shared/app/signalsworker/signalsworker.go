// Package signalsworker builds the signals worker and the signals group's host ports from
// the shared dependencies, for the three places that run them: functions/signalsworker and
// functions/signals in the cloud (Cloud), `make run` (Local). It is apart from
// shared/app/workers so that the stream consumer links no scheduler or Lambda client.
package signalsworker

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"

	"github.com/evalobs/evalapi/shared/app"
	"github.com/evalobs/evalapi/shared/egress"
	"github.com/evalobs/evalapi/shared/notify"
	"github.com/evalobs/evalapi/shared/signals"
)

// WebhookTimeout bounds one webhook attempt, connection included.
const WebhookTimeout = 10 * time.Second

var errRefused = errors.New("refused address")

// WebhookClient is the HTTP client of webhook deliveries: the SSRF rules of provider
// endpoints applied to the address actually connected to (after any DNS answer), no proxy
// from the environment, no redirect followed (a 3xx ends the delivery as refused).
func WebhookClient(allowPrivate bool) *http.Client {
	dialer := &net.Dialer{Timeout: WebhookTimeout, Control: func(_, address string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			return errRefused
		}
		if egress.CheckAddr(ap.Addr(), allowPrivate) != nil {
			return errRefused
		}
		return nil
	}}
	return &http.Client{
		Transport: &http.Transport{Proxy: nil, DialContext: dialer.DialContext, TLSHandshakeTimeout: WebhookTimeout,
			ResponseHeaderTimeout: WebhookTimeout, MaxResponseHeaderBytes: 64 << 10, ForceAttemptHTTP2: true},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// Publisher is the notification port of a host: the configuration's signed webhook, then
// bus (the EventBridge publisher in the cloud, a logger locally).
func Publisher(d app.Deps, bus notify.Publisher) notify.Publisher {
	hook := notify.WebhookPublisher{
		Webhook: &notify.Webhook{Client: WebhookClient(d.Config.AllowPrivateProviderEndpoints),
			IsPermanent: func(err error) bool { return errors.Is(err, errRefused) }},
		Destination: signals.WebhookDestination(d.Table, d.Secrets),
	}
	return notify.Publishers{hook, bus}
}

// Runner is the signals runner of a host over d, asking model and notifying pub.
func Runner(d app.Deps, model signals.Model, pub notify.Publisher) *signals.Runner {
	return &signals.Runner{Table: d.Table, Payloads: d.Payloads, Model: model, Notify: pub, Now: d.Now, Log: d.Log}
}

// background runs fn detached from the request that asked for it (its values kept, its
// cancellation not), as the local host's stand-in for an asynchronous invocation.
func background(ctx context.Context, fn func(ctx context.Context)) {
	go fn(context.WithoutCancel(ctx))
}
