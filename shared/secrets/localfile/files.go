package localfile

import (
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
)

// file is the content of DataFile. Only sealed values appear in it.
type file struct {
	Version int              `json:"version"`
	Secrets map[string]entry `json:"secrets"`
}

type entry struct {
	Sealed string `json:"sealed"` // base64(nonce || AES-256-GCM ciphertext and tag)
}

const fileVersion = 1

func (s *Store) load() (*file, error) {
	path := filepath.Join(s.dir, DataFile)
	b, err := os.ReadFile(path)
	if isNotExist(err) {
		return &file{Version: fileVersion, Secrets: make(map[string]entry)}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read: %w", err)
	}
	var f file
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("parse %s: %w", path, err)
	}
	if f.Version != fileVersion {
		return nil, fmt.Errorf("%s has version %d, want %d", path, f.Version, fileVersion)
	}
	if f.Secrets == nil {
		f.Secrets = make(map[string]entry)
	}
	return &f, nil
}

func (s *Store) save(f *file) error {
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return fmt.Errorf("encode: %w", err)
	}
	return writeAtomic(filepath.Join(s.dir, DataFile), b)
}

// writeAtomic replaces path with data: readers see the old file or the new one, never a
// part, and a crash leaves one of the two. The file has mode 0600.
func writeAtomic(path string, data []byte) error {
	tmp, err := createTemp(path, data)
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("replace %s: %w", path, err)
	}
	syncDir(filepath.Dir(path))
	return nil
}

// createTemp writes data to a new 0600 file beside path, flushed to disk, and returns its name.
func createTemp(path string, data []byte) (string, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return "", fmt.Errorf("create temporary file: %w", err)
	}
	name := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(name)
		return "", fmt.Errorf("write %s: %w", name, err)
	}
	return name, nil
}

// syncDir makes a rename durable. It is best effort: some systems cannot sync a directory,
// and the rename has already taken effect for every reader.
func syncDir(dir string) {
	if runtime.GOOS == "windows" {
		return
	}
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
}

// loadOrCreateKey returns the key in path, generating it on first use.
func loadOrCreateKey(path string) ([]byte, error) {
	key, err := readKey(path)
	if !isNotExist(err) {
		return key, err
	}
	key = make([]byte, keySize)
	if _, err := rand.Read(key); err != nil {
		return nil, fmt.Errorf("generate key: %w", err)
	}
	tmp, err := createTemp(path, key)
	if err != nil {
		return nil, fmt.Errorf("key: %w", err)
	}
	defer os.Remove(tmp)
	// A hard link publishes the complete file and fails if a key exists: of two processes
	// starting on a fresh directory, one key wins and both use it. (A rename would let the
	// second replace the key the first has already sealed values with.)
	switch err := os.Link(tmp, path); {
	case err == nil:
		return key, nil
	case errors.Is(err, fs.ErrExist):
		clear(key)
		return readKey(path)
	default:
		return nil, fmt.Errorf("key: publish %s: %w", path, err)
	}
}

func readKey(path string) ([]byte, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err // unwrapped: the caller tests for fs.ErrNotExist
	}
	if runtime.GOOS != "windows" && info.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("%s: %w (mode %#o); run chmod 600 on it", path, errKeyMode, info.Mode().Perm())
	}
	key, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read key: %w", err)
	}
	if len(key) != keySize {
		return nil, fmt.Errorf("%s holds %d bytes, want a %d-byte key", path, len(key), keySize)
	}
	return key, nil
}
