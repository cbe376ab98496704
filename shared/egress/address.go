package egress

import (
	"errors"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
)

// Why the service refuses to call an endpoint. Callers answer each with a fixed message
// that never carries what the provider sent.
var (
	// ErrRefusedAddress: the address (given, or resolved from a name) is not public unicast.
	ErrRefusedAddress = errors.New("refused address")
	// ErrBadURL: not an https URL with a host and no credentials, query or fragment.
	ErrBadURL = errors.New("not an allowed URL")
	// ErrUnreachable: the name did not resolve, or no address answered.
	ErrUnreachable = errors.New("unreachable")
)

// refusedPrefixes are the special-purpose ranges (IANA registries, RFC 6890 and successors)
// a provider cannot live at: private, shared (CGNAT), loopback, link-local (the metadata
// service at 169.254.169.254 included), documentation, benchmarking, multicast, reserved,
// and the IPv6 prefixes that embed or translate IPv4 addresses.
var refusedPrefixes = func() []netip.Prefix {
	var out []netip.Prefix
	for _, s := range []string{
		"0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16",
		"172.16.0.0/12", "192.0.0.0/24", "192.0.2.0/24", "192.88.99.0/24", "192.168.0.0/16",
		"198.18.0.0/15", "198.51.100.0/24", "203.0.113.0/24", "224.0.0.0/4", "240.0.0.0/4",
		"255.255.255.255/32",
		"::/128", "::1/128", "64:ff9b::/96", "64:ff9b:1::/48", "100::/64", "2001::/23",
		"2001:db8::/32", "2002::/16", "3fff::/20", "5f00::/16", "fc00::/7", "fe80::/10",
		"fec0::/10", "ff00::/8",
	} {
		out = append(out, netip.MustParsePrefix(s))
	}
	return out
}()

// CheckAddr says whether the service may connect to a: nil for a public unicast address,
// ErrRefusedAddress otherwise. With allowPrivate (tests against a local fake provider) a
// loopback address is allowed too; nothing else is.
func CheckAddr(a netip.Addr, allowPrivate bool) error {
	if !a.IsValid() {
		return ErrRefusedAddress
	}
	// An IPv4-mapped IPv6 address (::ffff:169.254.169.254) reaches the IPv4 address.
	a = a.Unmap().WithZone("")
	if allowPrivate && a.IsLoopback() {
		return nil
	}
	if a.IsLoopback() || a.IsPrivate() || a.IsUnspecified() || a.IsMulticast() ||
		a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() || a.IsInterfaceLocalMulticast() {
		return ErrRefusedAddress
	}
	for _, p := range refusedPrefixes {
		if p.Contains(a) {
			return ErrRefusedAddress
		}
	}
	return nil
}

// CheckEndpoint parses an endpoint as the service accepts it: an https URL with a host and
// no credentials, query or fragment (http too when allowPrivate, for a local fake provider).
// A host written as an IP address must pass CheckAddr; numeric host forms that some
// resolvers read as IPv4 addresses (2130706433, 0x7f000001, 0177.0.0.1, 127.1) are refused
// outright, as they could only be meant to slip past a check. Host names are checked after
// resolution, by the dialer.
func CheckEndpoint(raw string, allowPrivate bool) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, ErrBadURL
	}
	switch {
	case u.Scheme == "https":
	case u.Scheme == "http" && allowPrivate:
	default:
		return nil, ErrBadURL
	}
	if u.Opaque != "" || u.User != nil || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" {
		return nil, ErrBadURL
	}
	host := u.Hostname()
	if host == "" {
		return nil, ErrBadURL
	}
	if port := u.Port(); port != "" {
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return nil, ErrBadURL
		}
	}
	if a, err := netip.ParseAddr(host); err == nil {
		if CheckAddr(a, allowPrivate) != nil {
			return nil, ErrRefusedAddress
		}
		return u, nil
	}
	if numericHost(host) {
		return nil, ErrRefusedAddress
	}
	if strings.ContainsAny(host, "%[]") || strings.HasSuffix(strings.ToLower(strings.TrimSuffix(host, ".")), ".localhost") {
		return nil, ErrRefusedAddress
	}
	return u, nil
}

// numericHost reports whether host is made only of numbers (decimal, octal or hex) separated
// by dots: the inet_aton forms of an IPv4 address that netip does not accept.
func numericHost(host string) bool {
	for _, part := range strings.Split(strings.TrimSuffix(host, "."), ".") {
		p := strings.ToLower(part)
		if p == "" {
			return false
		}
		if strings.HasPrefix(p, "0x") {
			p = p[2:]
			if p == "" {
				return true
			}
			if strings.Trim(p, "0123456789abcdef") != "" {
				return false
			}
			continue
		}
		if strings.Trim(p, "0123456789") != "" {
			return false
		}
	}
	return true
}
