package provider_test

import (
	"testing"

	"github.com/evalobs/evalapi/shared/provider"
	"github.com/evalobs/evalapi/shared/provider/providertest"
)

// BenchmarkComplete is one chat completion through the client against the stub on
// 127.0.0.1 answering at once, from parallel goroutines (connections are reused): the
// client's cost plus loopback HTTP, the stub's own work included.
func BenchmarkComplete(b *testing.B) {
	s := providertest.New(b)
	s.Reply("judge-model", providertest.Answer(`{"rating":true,"explanation":"fine"}`))
	c := provider.New(provider.Options{AllowLoopback: true})
	target := chatTarget(s)
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := c.Complete(b.Context(), target, ask); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
