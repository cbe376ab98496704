// Package storetest is the conformance suite of the store.Table port: the same tests run
// against every adapter (embedded always; DynamoDB Local and moto under `make test`).
package storetest

import (
	"testing"

	"github.com/evalobs/evalapi/shared/store"
)

// Run runs the whole suite against the table that open returns. open may return the same
// table to every call: the suite keeps each test in partitions of its own.
func Run(t *testing.T, open func(t *testing.T) store.Table) {
	t.Helper()
	// The cases are being written in this package (placeholder replaced by the suite).
	_ = open
}
