package notify

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"log/slog"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Header names of a signed webhook (Standard Webhooks).
const (
	HeaderID        = "webhook-id"
	HeaderTimestamp = "webhook-timestamp"
	HeaderSignature = "webhook-signature"
)

const secretPrefix = "whsec_"

// Secret is a webhook signing key. It prints as [redacted] in every format and log.
type Secret []byte

func (Secret) String() string       { return "[redacted]" }
func (Secret) GoString() string     { return "[redacted]" }
func (Secret) LogValue() slog.Value { return slog.StringValue("[redacted]") }

// NewSecret returns a new random 32-byte key in its shown form, "whsec_" + base64.
func NewSecret() string {
	key := make([]byte, 32)
	_, _ = rand.Read(key) // crypto/rand.Read never fails (it panics first)
	return secretPrefix + base64.StdEncoding.EncodeToString(key)
}

// ParseSecret reads a key in its shown form ("whsec_" + base64 of 24 to 64 bytes).
func ParseSecret(s string) (Secret, error) {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(s, secretPrefix))
	if !strings.HasPrefix(s, secretPrefix) || err != nil || len(key) < 24 || len(key) > 64 {
		return nil, errors.New("notify: a webhook secret is whsec_ followed by the base64 of 24 to 64 bytes")
	}
	return key, nil
}

// Sign returns the webhook-signature value of a message: "v1," + base64 of the HMAC-SHA256
// of id + "." + timestamp + "." + body.
func Sign(key Secret, id string, ts time.Time, body []byte) string {
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + strconv.FormatInt(ts.Unix(), 10) + "."))
	mac.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil))
}

// Destination is where a configuration's findings go: the webhook URL and its key. It
// prints without the key and without the URL's path and query, which may be secret (many
// hook URLs carry their token there).
type Destination struct {
	URL    string
	Secret Secret
}

func (d Destination) String() string       { return "webhook " + redactURL(d.URL) }
func (d Destination) GoString() string     { return d.String() }
func (d Destination) LogValue() slog.Value { return slog.StringValue(d.String()) }

func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "(invalid URL)"
	}
	return u.Scheme + "://" + u.Host + "/..."
}
