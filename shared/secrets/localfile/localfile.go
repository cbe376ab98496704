// Package localfile is the secrets.Store of the local host: every secret of a directory in
// one file, each value sealed with AES-256-GCM under a key that the first Open generates and
// keeps in a second file beside it. Both files have mode 0600; no plaintext reaches the disk.
//
// Writes replace the file atomically (a temporary file renamed over it), so a crash leaves
// the old or the new state. A Store is safe for concurrent use; two processes writing one
// directory at once are not coordinated, and the last write wins.
//
// Only the current value of a secret is kept: nothing in the port reads an older one.
package localfile

import (
	"context"
	"crypto/cipher"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/evalobs/evalapi/shared/secrets"
)

// Names of the files in the directory.
const (
	DataFile = "secrets.json"
	KeyFile  = "secrets.key"
)

// Store is a secrets.Store over one directory. Refs are the secret names.
type Store struct {
	dir  string
	aead cipher.AEAD

	// mu orders the read-modify-write cycles of this process. Reads take it too, and read
	// the file each time, so that secrets another process wrote show without a restart.
	mu sync.RWMutex
}

var _ secrets.Store = (*Store)(nil)

// Open returns the store of dir, creating the directory (mode 0700) and the key on first use.
func Open(dir string) (*Store, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("localfile: create %s: %w", dir, err)
	}
	key, err := loadOrCreateKey(filepath.Join(dir, KeyFile))
	if err != nil {
		return nil, fmt.Errorf("localfile: %w", err)
	}
	aead, err := newAEAD(key)
	clear(key)
	if err != nil {
		return nil, fmt.Errorf("localfile: %w", err)
	}
	return &Store{dir: dir, aead: aead}, nil
}

// Put implements secrets.Store.
func (s *Store) Put(_ context.Context, name string, value []byte, _ map[string]string) (string, error) {
	// Tags are dropped: they serve IAM policies and cost reports in the cloud, and nothing
	// reads them back through the port.
	if err := secrets.CheckName(name); err != nil {
		return "", fmt.Errorf("localfile: put: %w", err)
	}
	if err := secrets.CheckValue(value); err != nil {
		return "", fmt.Errorf("localfile: put %q: %w", name, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	f, err := s.load()
	if err != nil {
		return "", fmt.Errorf("localfile: put %q: %w", name, err)
	}
	sealed, err := seal(s.aead, name, value)
	if err != nil {
		return "", fmt.Errorf("localfile: put %q: %w", name, err)
	}
	f.Secrets[name] = entry{Sealed: sealed}
	if err := s.save(f); err != nil {
		return "", fmt.Errorf("localfile: put %q: %w", name, err)
	}
	return name, nil
}

// Get implements secrets.Store.
func (s *Store) Get(_ context.Context, ref string) ([]byte, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	f, err := s.load()
	if err != nil {
		return nil, fmt.Errorf("localfile: get %q: %w", ref, err)
	}
	e, ok := f.Secrets[ref]
	if !ok {
		return nil, fmt.Errorf("localfile: get %q: %w", ref, secrets.ErrNotFound)
	}
	value, err := open(s.aead, ref, e.Sealed)
	if err != nil {
		return nil, fmt.Errorf("localfile: get %q: %w", ref, err)
	}
	return value, nil
}

// Delete implements secrets.Store.
func (s *Store) Delete(_ context.Context, ref string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, err := s.load()
	if err != nil {
		return fmt.Errorf("localfile: delete %q: %w", ref, err)
	}
	if _, ok := f.Secrets[ref]; !ok {
		return nil
	}
	delete(f.Secrets, ref)
	if err := s.save(f); err != nil {
		return fmt.Errorf("localfile: delete %q: %w", ref, err)
	}
	return nil
}

// ErrCorrupt is wrapped by Get when a sealed value fails to open: the file was altered or
// was written under another key.
var ErrCorrupt = errors.New("sealed value does not open under this directory's key")

var errKeyMode = errors.New("key file is accessible to group or others")

// isNotExist is fs.ErrNotExist, named for the call sites that treat a missing file as empty.
func isNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }
