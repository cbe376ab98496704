package egress

import (
	"errors"
	"net/netip"
	"testing"
)

func TestCheckAddr(t *testing.T) {
	for _, tc := range []struct {
		addr         string
		allowPrivate bool
		ok           bool
	}{
		{"93.184.216.34", false, true},
		{"2606:2800:220:1:248:1893:25c8:1946", false, true},
		{"8.8.8.8", false, true},
		{"127.0.0.1", false, false},
		{"127.0.0.1", true, true},
		{"::1", true, true},
		{"::ffff:127.0.0.1", true, true},
		{"127.8.9.10", false, false},
		{"::1", false, false},
		{"10.0.0.1", false, false},
		{"10.0.0.1", true, false}, // only loopback is let through for tests
		{"172.16.5.4", false, false},
		{"192.168.1.1", false, false},
		{"169.254.169.254", false, false},
		{"169.254.169.254", true, false},
		{"::ffff:169.254.169.254", false, false},
		{"::ffff:10.0.0.1", false, false},
		{"::ffff:127.0.0.1", false, false},
		{"0.0.0.0", false, false},
		{"::", false, false},
		{"100.64.0.1", false, false}, // CGNAT
		{"224.0.0.1", false, false},
		{"ff02::1", false, false},
		{"fe80::1", false, false},
		{"fe80::1%eth0", false, false},
		{"fd00::1", false, false},
		{"fd00:ec2::254", false, false}, // the IPv6 metadata service
		{"192.0.2.1", false, false},
		{"198.18.0.1", false, false},
		{"240.0.0.1", false, false},
		{"255.255.255.255", false, false},
		{"64:ff9b::a9fe:a9fe", false, false}, // NAT64 of 169.254.169.254
		{"2002:a9fe:a9fe::", false, false},   // 6to4 of 169.254.169.254
		{"2001:db8::1", false, false},
	} {
		err := CheckAddr(netip.MustParseAddr(tc.addr), tc.allowPrivate)
		if (err == nil) != tc.ok {
			t.Errorf("CheckAddr(%s, %v) = %v, want ok=%v", tc.addr, tc.allowPrivate, err, tc.ok)
		}
	}
	if CheckAddr(netip.Addr{}, true) == nil {
		t.Error("the zero address passed")
	}
}

func TestCheckEndpoint(t *testing.T) {
	for _, tc := range []struct {
		url          string
		allowPrivate bool
		want         error
	}{
		{"https://example-endpoint.openai.azure.com", false, nil},
		{"https://example.com:8443/base/", false, nil},
		{"http://example.com", false, ErrBadURL}, // https only
		{"http://example.com", true, nil},
		{"http://127.0.0.1:9999", true, nil},
		{"http://169.254.169.254/latest/meta-data/", false, ErrBadURL},
		{"https://169.254.169.254/latest/meta-data/", false, ErrRefusedAddress},
		{"http://169.254.169.254/latest/meta-data/", true, ErrRefusedAddress},
		{"http://[::ffff:169.254.169.254]/", true, ErrRefusedAddress},
		{"https://[::ffff:169.254.169.254]/", false, ErrRefusedAddress},
		{"https://127.0.0.1:2773/", false, ErrRefusedAddress},
		{"https://10.0.0.1/", false, ErrRefusedAddress},
		{"http://0x7f000001/", true, ErrRefusedAddress},
		{"https://0x7f000001/", false, ErrRefusedAddress},
		{"https://2130706433/", false, ErrRefusedAddress},
		{"https://0177.0.0.1/", false, ErrRefusedAddress},
		{"https://127.1/", false, ErrRefusedAddress},
		{"https://foo.localhost/", false, ErrRefusedAddress},
		{"file:///etc/passwd", false, ErrBadURL},
		{"file:///etc/passwd", true, ErrBadURL},
		{"gopher://x", true, ErrBadURL},
		{"ftp://example.com", false, ErrBadURL},
		{"https://user:pw@example.com", false, ErrBadURL},
		{"https://example.com?x=1", false, ErrBadURL},
		{"https://example.com#frag", false, ErrBadURL},
		{"https://", false, ErrBadURL},
		{"https://example.com:0", false, ErrBadURL},
		{"https://example.com:70000", false, ErrBadURL},
		{"//example.com", false, ErrBadURL},
		{"example.com", false, ErrBadURL},
		{"https://[fe80::1%25eth0]/", false, ErrRefusedAddress},
		{"", false, ErrBadURL},
	} {
		_, err := CheckEndpoint(tc.url, tc.allowPrivate)
		if !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
			t.Errorf("CheckEndpoint(%q, %v) = %v, want %v", tc.url, tc.allowPrivate, err, tc.want)
		}
	}
}

// FuzzEndpointCheck holds CheckEndpoint to its promise: whatever it accepts is an https (or,
// in test mode, http) URL with a host, and a host written as an IP address passes CheckAddr.
func FuzzEndpointCheck(f *testing.F) {
	for _, s := range []string{
		"https://example.com", "http://169.254.169.254/latest/meta-data/", "http://[::ffff:169.254.169.254]/",
		"http://127.0.0.1:2773/", "http://localhost:9001/", "http://10.0.0.1/", "http://0x7f000001/",
		"http://2130706433/", "file:///etc/passwd", "gopher://x", "https://[::1]:443/", "https://a@b",
		"https://0177.1", "https://%31%32%37.0.0.1/", "https://[fe80::1%25en0]/", "HTTPS://EXAMPLE.COM",
	} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, raw string, allowPrivate bool) {
		u, err := CheckEndpoint(raw, allowPrivate)
		if err != nil {
			if !errors.Is(err, ErrBadURL) && !errors.Is(err, ErrRefusedAddress) {
				t.Fatalf("unexpected error kind %v", err)
			}
			return
		}
		if u.Scheme != "https" && (u.Scheme != "http" || !allowPrivate) {
			t.Fatalf("accepted scheme %q of %q", u.Scheme, raw)
		}
		if u.Hostname() == "" || u.User != nil {
			t.Fatalf("accepted %q without host or with credentials", raw)
		}
		if a, err := netip.ParseAddr(u.Hostname()); err == nil && CheckAddr(a, allowPrivate) != nil {
			t.Fatalf("accepted refused address %s in %q", a, raw)
		}
		if _, err := netip.ParseAddr(u.Hostname()); err != nil && numericHost(u.Hostname()) {
			t.Fatalf("accepted numeric host %q", u.Hostname())
		}
	})
}
