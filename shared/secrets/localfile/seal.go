package localfile

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"fmt"
)

const keySize = 32 // AES-256

// aadPrefix binds each sealed value to this format and to its secret's name, so that a
// value moved to another name in the file fails to open instead of answering for it.
const aadPrefix = "evalapi/secrets/localfile/v1\x00"

func newAEAD(key []byte) (cipher.AEAD, error) {
	if len(key) != keySize {
		return nil, fmt.Errorf("key is %d bytes, want %d", len(key), keySize)
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("new cipher: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("new GCM: %w", err)
	}
	return aead, nil
}

// seal returns base64(nonce || ciphertext || tag) of value. Nonces are random: a local store
// stays far below the 2^32 messages per key that random 96-bit nonces allow.
func seal(aead cipher.AEAD, name string, value []byte) (string, error) {
	nonce := make([]byte, aead.NonceSize(), aead.NonceSize()+len(value)+aead.Overhead())
	if _, err := rand.Read(nonce); err != nil {
		return "", fmt.Errorf("nonce: %w", err)
	}
	out := aead.Seal(nonce, nonce, value, []byte(aadPrefix+name))
	return base64.StdEncoding.EncodeToString(out), nil
}

func open(aead cipher.AEAD, name, sealed string) ([]byte, error) {
	raw, err := base64.StdEncoding.DecodeString(sealed)
	if err != nil || len(raw) < aead.NonceSize()+aead.Overhead() {
		return nil, ErrCorrupt
	}
	n := aead.NonceSize()
	value, err := aead.Open(nil, raw[:n], raw[n:], []byte(aadPrefix+name))
	if err != nil {
		return nil, ErrCorrupt
	}
	return value, nil
}
