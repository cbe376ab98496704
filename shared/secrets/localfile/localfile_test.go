package localfile_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/evalobs/evalapi/shared/secrets"
	"github.com/evalobs/evalapi/shared/secrets/localfile"
	"github.com/evalobs/evalapi/shared/secrets/secretstest"
)

func open(t *testing.T, dir string) *localfile.Store {
	t.Helper()
	s, err := localfile.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestConformance(t *testing.T) {
	secretstest.Run(t, func(t *testing.T) secrets.Store { return open(t, t.TempDir()) })
}

func TestConformanceSharedDir(t *testing.T) {
	dir := t.TempDir()
	secretstest.Run(t, func(t *testing.T) secrets.Store { return open(t, dir) })
	assertNoTempFiles(t, dir)
}

// The canary must be nowhere on disk, in any encoding, after every kind of write.
func TestNoPlaintextOnDisk(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "secrets")
	s := open(t, dir)
	ctx := t.Context()
	canary := secretstest.Canary(t)
	ref, err := s.Put(ctx, "canary", canary, map[string]string{"k": "v"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Put(ctx, "canary", append(canary, "-v2"...), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Put(ctx, "other", canary, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(ctx, "other"); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Get(ctx, ref); err != nil || !bytes.HasPrefix(got, canary) {
		t.Fatalf("Get = %v", err)
	}

	var files int
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		files++
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		secretstest.NoLeak(t, path, string(b), canary)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files != 2 {
		t.Errorf("%d files in the directory, want the data file and the key file", files)
	}
}

func TestFileModes(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no Unix permissions")
	}
	dir := filepath.Join(t.TempDir(), "nested", "secrets")
	s := open(t, dir)
	if _, err := s.Put(t.Context(), "n", []byte("v"), nil); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]fs.FileMode{
		dir:                                    0o700 | fs.ModeDir,
		filepath.Join(dir, localfile.KeyFile):  0o600,
		filepath.Join(dir, localfile.DataFile): 0o600,
	} {
		info, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := info.Mode(); got != want {
			t.Errorf("%s: mode %v, want %v", path, got, want)
		}
	}
}

func TestReopen(t *testing.T) {
	dir := t.TempDir()
	ref, err := open(t, dir).Put(t.Context(), "n", []byte("kept"), nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := open(t, dir).Get(t.Context(), ref)
	if err != nil || string(got) != "kept" {
		t.Fatalf("Get after reopening = %q, %v", got, err)
	}
}

// Two stores on one directory (two processes, say) see each other's writes.
func TestTwoStoresOneDir(t *testing.T) {
	dir := t.TempDir()
	a, b := open(t, dir), open(t, dir)
	if _, err := a.Put(t.Context(), "n", []byte("from a"), nil); err != nil {
		t.Fatal(err)
	}
	if got, err := b.Get(t.Context(), "n"); err != nil || string(got) != "from a" {
		t.Fatalf("b.Get = %q, %v", got, err)
	}
}

// Stores opened at once on a fresh directory agree on one key.
func TestConcurrentFirstOpen(t *testing.T) {
	dir := t.TempDir()
	stores := make([]*localfile.Store, 8)
	var wg sync.WaitGroup
	for i := range stores {
		wg.Go(func() {
			s, err := localfile.Open(dir)
			if err != nil {
				t.Error(err)
			}
			stores[i] = s
		})
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	if _, err := stores[0].Put(t.Context(), "n", []byte("v"), nil); err != nil {
		t.Fatal(err)
	}
	for i, s := range stores {
		if got, err := s.Get(t.Context(), "n"); err != nil || string(got) != "v" {
			t.Errorf("store %d: Get = %q, %v", i, got, err)
		}
	}
	assertNoTempFiles(t, dir)
}

func TestTampering(t *testing.T) {
	for _, tc := range []struct {
		name   string
		tamper func(t *testing.T, dir string)
	}{
		{"value moved to another name", func(t *testing.T, dir string) {
			editFile(t, dir, func(m map[string]map[string]string) { m["victim"] = m["attacker"] })
		}},
		{"ciphertext altered", func(t *testing.T, dir string) {
			editFile(t, dir, func(m map[string]map[string]string) {
				s := m["victim"]["sealed"]
				m["victim"]["sealed"] = s[:10] + flip(s[10]) + s[11:]
			})
		}},
		{"not base64", func(t *testing.T, dir string) {
			editFile(t, dir, func(m map[string]map[string]string) { m["victim"]["sealed"] = "!!" })
		}},
		{"other key", func(t *testing.T, dir string) {
			other := t.TempDir()
			open(t, other)
			b, err := os.ReadFile(filepath.Join(other, localfile.KeyFile))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, localfile.KeyFile), b, 0o600); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			s := open(t, dir)
			for name, v := range map[string]string{"victim": "victim-value", "attacker": "attacker-value"} {
				if _, err := s.Put(t.Context(), name, []byte(v), nil); err != nil {
					t.Fatal(err)
				}
			}
			tc.tamper(t, dir)
			got, err := open(t, dir).Get(t.Context(), "victim")
			if !errors.Is(err, localfile.ErrCorrupt) {
				t.Fatalf("Get = %q, %v; want ErrCorrupt", got, err)
			}
		})
	}
}

func TestOpenRejects(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, dir string)
		want  string
	}{
		{"short key", func(t *testing.T, dir string) {
			write(t, filepath.Join(dir, localfile.KeyFile), []byte("short"), 0o600)
		}, "want a 32-byte key"},
		{"key readable by others", func(t *testing.T, dir string) {
			if runtime.GOOS == "windows" {
				t.Skip("no Unix permissions")
			}
			write(t, filepath.Join(dir, localfile.KeyFile), make([]byte, 32), 0o644)
		}, "chmod 600"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			tc.setup(t, dir)
			if _, err := localfile.Open(dir); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Open = %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

func TestCorruptDataFile(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir)
	write(t, filepath.Join(dir, localfile.DataFile), []byte("{not json"), 0o600)
	if _, err := s.Get(t.Context(), "n"); err == nil || errors.Is(err, secrets.ErrNotFound) {
		t.Errorf("Get on a corrupt file = %v, want a parse error", err)
	}
	if _, err := s.Put(t.Context(), "n", []byte("v"), nil); err == nil {
		t.Error("Put over a corrupt file succeeded; it would have dropped every other secret")
	}
}

func editFile(t *testing.T, dir string, edit func(map[string]map[string]string)) {
	t.Helper()
	path := filepath.Join(dir, localfile.DataFile)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Version int                          `json:"version"`
		Secrets map[string]map[string]string `json:"secrets"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	edit(f.Secrets)
	b, err = json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	write(t, path, b, 0o600)
}

func write(t *testing.T, path string, b []byte, mode fs.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, b, mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil { // WriteFile's mode is masked by umask
		t.Fatal(err)
	}
}

func flip(c byte) string {
	if c == 'A' {
		return "B"
	}
	return "A"
}

func assertNoTempFiles(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".tmp") {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}
}
