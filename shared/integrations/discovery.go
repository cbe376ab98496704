package integrations

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"time"

	"github.com/evalobs/evalapi/shared/egress"
	"github.com/evalobs/evalapi/shared/secrets"
)

// Limits of a deployment listing call.
const (
	DefaultDiscoveryTimeout = 5 * time.Second
	MaxDiscoveryBody        = 1 << 20 // bytes of a deployment list read at most
	maxDeployments          = 1000
)

// Causes of a failed listing; the address causes come from egress.
var (
	errRefusedAddress = egress.ErrRefusedAddress
	errBadURL         = egress.ErrBadURL
	errUnreachable    = egress.ErrUnreachable
	errTimeout        = errors.New("timeout")
	errBadResponse    = errors.New("bad response")
	errUnauthorized   = errors.New("unauthorized")
)

// Resolver finds the addresses of a host name; *net.Resolver implements it.
type Resolver = egress.Resolver

// Deployment is one model deployment of a cloud-host endpoint.
type Deployment struct {
	Model string `json:"model"`
	ID    string `json:"id"`
}

// Discoverer lists the deployments of a cloud-host endpoint, connecting only to addresses
// that egress allows, checked after resolution and again on the socket itself.
type Discoverer struct {
	AllowPrivate bool
	Timeout      time.Duration // zero is DefaultDiscoveryTimeout
	Resolver     Resolver      // nil is net.DefaultResolver
	// dialed counts connections attempted, for tests that prove none was made.
	dialed func(addr netip.AddrPort)
}

// client builds an HTTP client that never follows a redirect, never uses a proxy from the
// environment, keeps no connection, and dials only checked addresses.
func (d *Discoverer) client() *http.Client {
	timeout := d.Timeout
	if timeout <= 0 {
		timeout = DefaultDiscoveryTimeout
	}
	dialer := &egress.Dialer{AllowLoopback: d.AllowPrivate, Timeout: timeout, Resolver: d.Resolver, Dialed: d.dialed}
	c := dialer.Client(timeout)
	c.Transport.(*http.Transport).DisableKeepAlives = true
	c.Timeout = timeout
	return c
}

// Deployments lists the deployments of the endpoint with GET
// {endpoint}/openai/deployments?api-version={apiVersion} and header api-key. The error is
// one of the causes above; it never carries what the provider sent.
func (d *Discoverer) Deployments(ctx context.Context, endpoint, apiVersion string, token secrets.Value) ([]Deployment, error) {
	u, err := egress.CheckEndpoint(endpoint, d.AllowPrivate)
	if err != nil {
		return nil, err
	}
	u = u.JoinPath("openai", "deployments")
	u.RawQuery = url.Values{"api-version": {apiVersion}}.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, errBadURL
	}
	req.Header.Set("api-key", token.RevealString())
	req.Header.Set("Accept", "application/json")
	resp, err := d.client().Do(req)
	if err != nil {
		return nil, classify(err)
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		return nil, errUnauthorized
	case resp.StatusCode != http.StatusOK:
		return nil, errBadResponse
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxDiscoveryBody+1))
	if err != nil {
		return nil, classify(err)
	}
	if len(body) > MaxDiscoveryBody {
		return nil, errBadResponse
	}
	return parseDeployments(body)
}

// parseDeployments reads {"data":[{"id","model",...}]}: every entry needs a non-empty id
// and model.
func parseDeployments(body []byte) ([]Deployment, error) {
	var list struct {
		Data *[]struct {
			ID    *string `json:"id"`
			Model *string `json:"model"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &list); err != nil || list.Data == nil || len(*list.Data) > maxDeployments {
		return nil, errBadResponse
	}
	out := make([]Deployment, 0, len(*list.Data))
	for _, e := range *list.Data {
		if e.ID == nil || e.Model == nil || *e.ID == "" || *e.Model == "" || len(*e.ID) > 255 || len(*e.Model) > 255 {
			return nil, errBadResponse
		}
		out = append(out, Deployment{Model: *e.Model, ID: *e.ID})
	}
	return out, nil
}

// classify maps a transport error to a cause.
func classify(err error) error {
	var ne net.Error
	switch {
	case errors.Is(err, errRefusedAddress):
		return errRefusedAddress
	case errors.Is(err, errUnreachable):
		return errUnreachable
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return errTimeout
	}
	return errUnreachable
}

// causeMessage is the fixed message of a 422 at ["body","endpoint"] for each cause.
func causeMessage(err error) string {
	switch {
	case errors.Is(err, errBadURL):
		return "endpoint must be an https URL with a host and no credentials, query or fragment"
	case errors.Is(err, errRefusedAddress):
		return "endpoint refused: its address is private, loopback, link-local or otherwise reserved"
	case errors.Is(err, errTimeout):
		return fmt.Sprintf("endpoint timeout: no deployment list within %s", DefaultDiscoveryTimeout)
	case errors.Is(err, errUnauthorized):
		return "endpoint unauthorized: the provider refused the token"
	case errors.Is(err, errBadResponse):
		return "endpoint bad response: the provider did not answer with a deployment list"
	}
	return "endpoint unreachable: could not connect to list deployments"
}
