package auth

import (
	"strings"
	"testing"
)

func TestPasswordHash(t *testing.T) {
	hash, err := HashPassword("correct horse")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(hash, "$argon2id$v=19$m=19456,t=2,p=1$") {
		t.Fatalf("hash %q does not carry OWASP's minimum parameters", hash)
	}
	again, _ := HashPassword("correct horse")
	if again == hash {
		t.Fatal("two hashes of one password are equal: no salt")
	}
	parts := strings.Split(hash, "$")
	tests := []struct {
		name, hash, password string
		ok                   bool
		err                  bool
	}{
		{"right", hash, "correct horse", true, false},
		{"wrong", hash, "correct horse ", false, false},
		{"empty", hash, "", false, false},
		{"other salt", again, "correct horse", true, false},
		{"bcrypt", "$2a$10$abcdefghijklmnopqrstuu", "x", false, true},
		{"argon2i", strings.Replace(hash, "argon2id", "argon2i", 1), "correct horse", false, true},
		{"huge memory", strings.Replace(hash, "m=19456", "m=4194304", 1), "correct horse", false, true},
		{"bad salt", strings.Join(append(parts[:4:4], "!!", parts[5]), "$"), "correct horse", false, true},
		{"short sum", strings.Join(append(parts[:5:5], "AAAA"), "$"), "correct horse", false, true},
		{"empty hash", "", "x", false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ok, err := VerifyPassword(tt.hash, tt.password)
			if ok != tt.ok || (err != nil) != tt.err {
				t.Fatalf("got %v, %v; want %v, error %v", ok, err, tt.ok, tt.err)
			}
		})
	}
}

func TestParseTTL(t *testing.T) {
	tests := []struct {
		in   string
		want string
		err  bool
	}{
		{"", "1h0m0s", false},
		{"3600", "1h0m0s", false},
		{"336h", "336h0m0s", false},
		{"15m", "15m0s", false},
		{"0", "", true},
		{"-5s", "", true},
		{"soon", "", true},
	}
	for _, tt := range tests {
		got, err := ParseTTL(tt.in, DefaultAccessTTL)
		if (err != nil) != tt.err || (err == nil && got.String() != tt.want) {
			t.Errorf("ParseTTL(%q) = %v, %v; want %s (error %v)", tt.in, got, err, tt.want, tt.err)
		}
	}
}
