package store_test

import (
	"testing"
	"time"
)

// eventuallyIdentity retries a read of a GSI (eventually consistent on AWS) for a few seconds.
func eventuallyIdentity(t *testing.T, what string, ok func() (bool, error)) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		done, err := ok()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if done {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not seen within 5 s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
