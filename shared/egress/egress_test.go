package egress

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"sync/atomic"
	"testing"
)

type fixedResolver []netip.Addr

func (r fixedResolver) LookupNetIP(context.Context, string, string) ([]netip.Addr, error) {
	return r, nil
}

func TestDialerRefusesBeforeConnecting(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	for _, tc := range []struct {
		name     string
		url      string
		loopback bool
		resolver Resolver
		want     error
		dials    int64
	}{
		{"loopback literal refused", srv.URL, false, nil, ErrRefusedAddress, 0},
		{"loopback literal allowed in test mode", srv.URL, true, nil, nil, 1},
		{"name rebinding to metadata", "http://rebind.example.com:" + u.Port(), true,
			fixedResolver{netip.MustParseAddr("169.254.169.254")}, ErrRefusedAddress, 0},
		{"name with one private address among public ones", "http://mixed.example.com:" + u.Port(), true,
			fixedResolver{netip.MustParseAddr("127.0.0.1"), netip.MustParseAddr("10.0.0.7")}, ErrRefusedAddress, 0},
		{"name resolving to loopback in test mode", "http://stub.example.com:" + u.Port(), true,
			fixedResolver{netip.MustParseAddr("127.0.0.1")}, nil, 1},
		{"name resolving to nothing", "http://none.example.com:" + u.Port(), true, fixedResolver{}, ErrUnreachable, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var dials atomic.Int64
			d := &Dialer{AllowLoopback: tc.loopback, Resolver: tc.resolver, Dialed: func(netip.AddrPort) { dials.Add(1) }}
			resp, err := d.Client(0).Get(tc.url)
			if err == nil {
				resp.Body.Close()
			}
			if (tc.want == nil) != (err == nil) || tc.want != nil && !errors.Is(err, tc.want) {
				t.Fatalf("error %v, want %v", err, tc.want)
			}
			if n := dials.Load(); n != tc.dials {
				t.Fatalf("%d connections attempted, want %d", n, tc.dials)
			}
		})
	}
}

// The socket hook is the last line: an address that reaches it unchecked is refused there.
func TestControlRefusesPrivate(t *testing.T) {
	d := &Dialer{AllowLoopback: true}
	for addr, ok := range map[string]bool{
		"127.0.0.1:80": true, "[::1]:443": true, "10.0.0.1:80": false, "169.254.169.254:80": false,
		"[::ffff:169.254.169.254]:80": false, "93.184.216.34:443": true, "nonsense": false,
	} {
		if err := d.Control("tcp", addr, nil); (err == nil) != ok {
			t.Errorf("Control(%s) = %v, want ok=%v", addr, err, ok)
		}
	}
	if (&Dialer{}).Control("tcp", "127.0.0.1:80", nil) == nil {
		t.Error("loopback passed without AllowLoopback")
	}
}
