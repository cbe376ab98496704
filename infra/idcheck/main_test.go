package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	for _, tc := range []struct {
		name    string
		files   map[string]string // file name: content
		wantErr string            // "" for success
		wantOut string
	}{
		{"nothing recorded", nil, "nothing recorded", ""},
		{"clean", map[string]string{"ids-1-a.txt": "", "ids-2-b.txt": ""}, "", "2 test binaries"},
		{"a v5 session id", map[string]string{"ids-1-a.txt": "",
			"ids-2-b.txt": `POST /v2/projects/p/sessions 200 .id = "cd097cd3-8137-5ed1-b202-09e495188c8f"` + "\n"},
			"1 id fields", `.id = "cd097cd3-8137-5ed1-b202-09e495188c8f"`},
		{"the same violation twice counts once", map[string]string{
			"ids-1-a.txt": "GET /x 200 .records[0].id = \"019a7b1c-2d3e-7f40-8a5b-6c7d8e9f0a1b\"\n",
			"ids-2-b.txt": "GET /x 200 .records[0].id = \"019a7b1c-2d3e-7f40-8a5b-6c7d8e9f0a1b\"\n"},
			"1 id fields", "019a7b1c"},
		{"other files are not records", map[string]string{"ops-1-a.txt": "GET /x 200 .id = \"1\"\n"}, "nothing recorded", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, content := range tc.files {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			var out strings.Builder
			err := run(&out, dir)
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("run: %v", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("run error = %v, want one containing %q", err, tc.wantErr)
			}
			if !strings.Contains(out.String(), tc.wantOut) {
				t.Errorf("output %q, want it to contain %q", out.String(), tc.wantOut)
			}
		})
	}
	if err := run(&strings.Builder{}, ""); err == nil {
		t.Error("run without a directory succeeded")
	}
}
