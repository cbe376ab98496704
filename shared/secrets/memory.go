package secrets

import (
	"context"
	"fmt"
	"maps"
	"sync"
)

// Memory is a Store in process memory, for tests. Refs are the names. The zero Memory is not
// usable; call NewMemory.
type Memory struct {
	mu      sync.RWMutex
	secrets map[string]memorySecret
}

type memorySecret struct {
	value Value // a Value, so that printing the store with %+v redacts it
	tags  map[string]string
}

var _ Store = (*Memory)(nil)

// NewMemory returns an empty Memory store.
func NewMemory() *Memory { return &Memory{secrets: make(map[string]memorySecret)} }

// Put implements Store.
func (m *Memory) Put(_ context.Context, name string, value []byte, tags map[string]string) (string, error) {
	if err := CheckName(name); err != nil {
		return "", fmt.Errorf("memory: put: %w", err)
	}
	if err := CheckValue(value); err != nil {
		return "", fmt.Errorf("memory: put %q: %w", name, err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.secrets[name]
	if !ok {
		// Like Secrets Manager, tags are set when the secret is created.
		s.tags = maps.Clone(tags)
	}
	s.value = NewValue(value)
	m.secrets[name] = s
	return name, nil
}

// Get implements Store.
func (m *Memory) Get(_ context.Context, ref string) ([]byte, error) {
	m.mu.RLock()
	s, ok := m.secrets[ref]
	m.mu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("memory: get %q: %w", ref, ErrNotFound)
	}
	return s.value.Reveal(), nil
}

// Delete implements Store.
func (m *Memory) Delete(_ context.Context, ref string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.secrets, ref)
	return nil
}

// Tags returns the tags the secret was created with, for tests that check what a caller
// tagged; ok is false when ref names no secret.
func (m *Memory) Tags(ref string) (tags map[string]string, ok bool) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	s, ok := m.secrets[ref]
	return maps.Clone(s.tags), ok
}
