// Package egress holds the rules of every outbound call the service makes to an address a
// user chose (provider endpoints, OAuth2 token URLs): which URLs are accepted, which
// addresses may be connected to, and an HTTP client that enforces both on the socket itself,
// so that a name resolving to a private address — at write time or later (DNS rebinding) —
// is refused where the connection is made.
//
// Integrations check endpoints with CheckEndpoint when they are written; the deployment
// listing and the provider client dial through Dialer.
package egress

import (
	"context"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"syscall"
	"time"
)

// Resolver finds the addresses of a host name; *net.Resolver implements it.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// Dialer connects only to addresses CheckAddr allows: a name is resolved and refused as a
// whole when any of its addresses is refused (a name that also points inside is not a
// provider); the address finally connected to is checked again by the socket's Control hook.
type Dialer struct {
	// AllowLoopback lets loopback addresses through (and http URLs in CheckEndpoint), for a
	// fake provider on 127.0.0.1 in tests and the local host; nothing else private is let
	// through.
	AllowLoopback bool
	Timeout       time.Duration // connect timeout; zero is 10 s
	Resolver      Resolver      // nil is net.DefaultResolver
	// Dialed, when set, sees every address a connection is attempted to (tests prove that
	// none was made).
	Dialed func(netip.AddrPort)
}

// Control is the socket hook: whatever resolved the name, the address about to be
// connected to must pass CheckAddr.
func (d *Dialer) Control(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return ErrRefusedAddress
	}
	return CheckAddr(ap.Addr(), d.AllowLoopback)
}

// DialContext resolves address's host, checks every address, and connects to the first
// that answers. Its errors wrap ErrRefusedAddress or ErrUnreachable, or are the dialer's.
func (d *Dialer) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(address)
	if err != nil {
		return nil, ErrRefusedAddress
	}
	p, err := strconv.ParseUint(port, 10, 16)
	if err != nil {
		return nil, ErrRefusedAddress
	}
	var addrs []netip.Addr
	if a, err := netip.ParseAddr(host); err == nil {
		addrs = []netip.Addr{a}
	} else {
		r := d.Resolver
		if r == nil {
			r = net.DefaultResolver
		}
		if addrs, err = r.LookupNetIP(ctx, "ip", host); err != nil || len(addrs) == 0 {
			return nil, ErrUnreachable
		}
	}
	for _, a := range addrs {
		if err := CheckAddr(a, d.AllowLoopback); err != nil {
			return nil, err
		}
	}
	timeout := d.Timeout
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	nd := &net.Dialer{Timeout: timeout, Control: d.Control}
	var last error = ErrUnreachable
	for _, a := range addrs {
		ap := netip.AddrPortFrom(a.Unmap(), uint16(p))
		if d.Dialed != nil {
			d.Dialed(ap)
		}
		conn, err := nd.DialContext(ctx, network, ap.String())
		if err == nil {
			return conn, nil
		}
		last = err
	}
	return nil, last
}

// Transport returns an http.Transport that dials through d, never uses a proxy from the
// environment, and bounds the TLS handshake and the wait for response headers by
// headerTimeout (zero: no bound beyond the request's context).
func (d *Dialer) Transport(headerTimeout time.Duration) *http.Transport {
	return &http.Transport{
		Proxy:                  nil,
		DialContext:            d.DialContext,
		TLSHandshakeTimeout:    headerTimeout,
		ResponseHeaderTimeout:  headerTimeout,
		MaxResponseHeaderBytes: 64 << 10,
		MaxIdleConnsPerHost:    64,
		IdleConnTimeout:        90 * time.Second,
		ForceAttemptHTTP2:      true,
	}
}

// Client returns an http.Client over Transport that never follows a redirect (a redirect
// could lead anywhere; the caller sees the 3xx).
func (d *Dialer) Client(headerTimeout time.Duration) *http.Client {
	return &http.Client{
		Transport:     d.Transport(headerTimeout),
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}
