package tenancy_test

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
)

// TestMain runs the matrix and then sweeps everything the package captured - every log line
// of the router and the handlers, every response's headers and body except the one answer
// that issues a credential - for the canaries planted in both organizations' data: the
// integration tokens, the passwords, the API keys, the access tokens (JWTs) and the refresh
// cookie, in every form a leak could take. A canary found anywhere fails the run.
func TestMain(m *testing.M) {
	code := m.Run()
	if leaks := sweep(); len(leaks) > 0 {
		fmt.Fprintln(os.Stderr, "canary sweep failed:\n  "+strings.Join(leaks, "\n  "))
		code = 1
	} else if code == 0 {
		fmt.Printf("canary sweep: %d canaries, %d forms each, in %d bytes of logs and responses: none found\n",
			len(capture.canaries), len(forms("x")), capture.size())
	}
	os.Exit(code)
}

// captured is what the package's worlds logged and answered, and the canaries they planted.
type captured struct {
	mu       sync.Mutex
	logs     []*syncBuffer
	answers  []*syncBuffer
	canaries []string
}

var capture captured

// size is the number of bytes captured.
func (c *captured) size() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, b := range append(append([]*syncBuffer{}, c.logs...), c.answers...) {
		n += len(b.Bytes())
	}
	return n
}

func plant(values ...string) {
	capture.mu.Lock()
	defer capture.mu.Unlock()
	for _, v := range values {
		if v != "" {
			capture.canaries = append(capture.canaries, v)
		}
	}
}

func captureWorld(logs, answers *syncBuffer) {
	capture.mu.Lock()
	defer capture.mu.Unlock()
	capture.logs = append(capture.logs, logs)
	capture.answers = append(capture.answers, answers)
}

// forms are the encodings a leaked value could take on its way out.
func forms(v string) map[string]string {
	b := []byte(v)
	return map[string]string{
		"raw":        v,
		"base64":     base64.StdEncoding.EncodeToString(b),
		"base64raw":  base64.RawStdEncoding.EncodeToString(b),
		"base64url":  base64.URLEncoding.EncodeToString(b),
		"base64rurl": base64.RawURLEncoding.EncodeToString(b),
		"hex":        hex.EncodeToString(b),
		"HEX":        strings.ToUpper(hex.EncodeToString(b)),
		"query":      url.QueryEscape(v),
		"path":       url.PathEscape(v),
	}
}

// sweep returns a line per canary form found in the captured logs and answers.
func sweep() []string {
	capture.mu.Lock()
	defer capture.mu.Unlock()
	var leaks []string
	for _, where := range []struct {
		name string
		bufs []*syncBuffer
	}{{"logs", capture.logs}, {"responses", capture.answers}} {
		for i, buf := range where.bufs {
			text := string(buf.Bytes())
			for n, c := range capture.canaries {
				for form, v := range forms(c) {
					if strings.Contains(text, v) {
						leaks = append(leaks, fmt.Sprintf("canary %d (%d bytes) in %s form in the %s of world %d", n, len(c), form, where.name, i))
					}
				}
			}
		}
	}
	return leaks
}

// TestSweepFindsAPlantedLeak: the sweep is not blind - a canary written into a log in any of
// its forms is found.
func TestSweepFindsAPlantedLeak(t *testing.T) {
	const secret = "canary-self-test-0123456789"
	for form, v := range forms(secret) {
		buf := &syncBuffer{}
		fmt.Fprintf(buf, `{"msg":"oops","value":%q}`, v)
		capture.mu.Lock()
		logs, answers, canaries := capture.logs, capture.answers, capture.canaries
		capture.logs, capture.answers, capture.canaries = []*syncBuffer{buf}, nil, []string{secret}
		capture.mu.Unlock()
		leaks := sweep()
		capture.mu.Lock()
		capture.logs, capture.answers, capture.canaries = logs, answers, canaries
		capture.mu.Unlock()
		if len(leaks) == 0 {
			t.Errorf("a %s form of a canary in a log was not found", form)
		}
	}
}
