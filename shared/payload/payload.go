// Package payload stores the large contents of logged records outside the table: any
// content field above the threshold goes here, keyed by its record, and the record keeps a
// pointer that reads resolve. The cloud adapter is S3 (a bucket of the stack), the local
// one a folder of the data directory, and Memory serves tests.
package payload

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// Store keeps payloads by key.
type Store interface {
	Put(ctx context.Context, key string, data []byte) error
	// Get returns the payload of key; ErrNotFound when there is none.
	Get(ctx context.Context, key string) ([]byte, error)
	// Delete removes a payload; absent is not an error.
	Delete(ctx context.Context, key string) error
}

// ErrNotFound is returned (wrapped) by Get for an absent key.
var ErrNotFound = errors.New("payload: not found")

// validKey says whether key is a key this service makes: path segments of letters, digits,
// '-', '_' and '.', no empty or dot segment (so a Dir key cannot leave its folder).
func validKey(key string) bool {
	if key == "" || len(key) > 512 {
		return false
	}
	for _, seg := range strings.Split(key, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return false
		}
		for _, r := range seg {
			ok := r == '-' || r == '_' || r == '.' || (r >= '0' && r <= '9') || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z')
			if !ok {
				return false
			}
		}
	}
	return true
}

// Memory is a Store in memory.
type Memory struct {
	mu sync.Mutex
	m  map[string][]byte
}

// NewMemory returns an empty Memory.
func NewMemory() *Memory { return &Memory{m: map[string][]byte{}} }

func (s *Memory) Put(_ context.Context, key string, data []byte) error {
	if !validKey(key) {
		return fmt.Errorf("payload: bad key %q", key)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[key] = append([]byte(nil), data...)
	return nil
}

func (s *Memory) Get(_ context.Context, key string) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, ok := s.m[key]
	if !ok {
		return nil, fmt.Errorf("payload %s: %w", key, ErrNotFound)
	}
	return append([]byte(nil), b...), nil
}

func (s *Memory) Delete(_ context.Context, key string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.m, key)
	return nil
}

// Len is the number of payloads held (tests).
func (s *Memory) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.m)
}

// Dir is a Store in a folder: one file per key (the local hosts' data directory).
type Dir struct{ root string }

// NewDir returns a Store under root, creating it.
func NewDir(root string) (*Dir, error) {
	if err := os.MkdirAll(root, 0o700); err != nil {
		return nil, fmt.Errorf("payload: %w", err)
	}
	return &Dir{root: root}, nil
}

func (d *Dir) path(key string) (string, error) {
	if !validKey(key) {
		return "", fmt.Errorf("payload: bad key %q", key)
	}
	return filepath.Join(d.root, filepath.FromSlash(key)), nil
}

func (d *Dir) Put(_ context.Context, key string, data []byte) error {
	p, err := d.path(key)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return fmt.Errorf("payload: %w", err)
	}
	// Write then rename: a reader never sees half a payload.
	tmp := p + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return fmt.Errorf("payload: %w", err)
	}
	if err := os.Rename(tmp, p); err != nil {
		return fmt.Errorf("payload: %w", err)
	}
	return nil
}

func (d *Dir) Get(_ context.Context, key string) ([]byte, error) {
	p, err := d.path(key)
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(p)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("payload %s: %w", key, ErrNotFound)
	}
	return b, err
}

func (d *Dir) Delete(_ context.Context, key string) error {
	p, err := d.path(key)
	if err != nil {
		return err
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("payload: %w", err)
	}
	return nil
}
