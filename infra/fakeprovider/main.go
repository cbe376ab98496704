// Command fakeprovider is a chat-completions server for trying evaluation locally without a
// vendor account (README, "See scoring locally"). It answers every chat completion, in the
// model-vendor and the cloud-host protocols, with a judgment the judges can read: a JSON
// object with an explanation and a rating that is a deterministic function of the prompt
// (true for about two prompts in three). It listens on loopback only and is never part of a
// Lambda; tests use shared/provider/providertest instead, which is programmable.
package main

import (
	"crypto/sha256"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"strings"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8089", "address to listen on (loopback)")
	flag.Parse()
	host, _, err := net.SplitHostPort(*addr)
	if err != nil || !(host == "127.0.0.1" || host == "localhost" || host == "::1") {
		log.Fatalf("fakeprovider: -addr %q: listen on a loopback address only", *addr)
	}
	http.HandleFunc("POST /", complete)
	log.Printf("fakeprovider: chat completions at http://%s (register it with PUT /v2/integrations/custom)", *addr)
	log.Fatal(http.ListenAndServe(*addr, nil))
}

// complete answers a chat completion at .../chat/completions.
func complete(w http.ResponseWriter, r *http.Request) {
	if !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		http.NotFound(w, r)
		return
	}
	var req struct {
		Model    string `json:"model"`
		Messages []struct {
			Content string `json:"content"`
		} `json:"messages"`
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 4<<20))
	if err != nil || json.Unmarshal(body, &req) != nil {
		http.Error(w, `{"error":{"message":"not a chat completion"}}`, http.StatusBadRequest)
		return
	}
	h := sha256.New()
	for _, m := range req.Messages {
		h.Write([]byte(m.Content))
	}
	sum := h.Sum(nil)
	rating := sum[0]%3 != 0
	answer, _ := json.Marshal(map[string]any{
		"explanation": fmt.Sprintf("fakeprovider's verdict for prompt %x", sum[:4]),
		"rating":      rating,
	})
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": "fake-" + fmt.Sprintf("%x", sum[:6]), "object": "chat.completion", "model": req.Model,
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
			"message": map[string]any{"role": "assistant", "content": string(answer)}}},
		"usage": map[string]any{"prompt_tokens": len(body) / 4, "completion_tokens": len(answer) / 4,
			"total_tokens": len(body)/4 + len(answer)/4},
	})
}
