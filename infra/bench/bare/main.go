// Command bare is the baseline of `make bench-http`: a plain net/http server that answers
// each path of a manifest with the bytes and headers captured from the local host, and
// nothing else (no routing beyond an exact path, no authentication, no store). What the
// host costs beyond it is what our code costs.
//
//	PORT=8080 bare -manifest responses.json
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
)

// Response is one captured answer; the manifest is a list of them. The load generator
// (infra/bench) writes it with the same type.
type Response struct {
	Path   string              `json:"path"`
	Header map[string][]string `json:"header"`
	Body   []byte              `json:"body"`
}

func main() {
	manifest := flag.String("manifest", "", "JSON list of {path, header, body} to serve")
	flag.Parse()
	if err := run(*manifest, os.Getenv("PORT")); err != nil {
		fmt.Fprintln(os.Stderr, "bare:", err)
		os.Exit(1)
	}
}

func run(manifest, port string) error {
	raw, err := os.ReadFile(manifest)
	if err != nil {
		return err
	}
	var rs []Response
	if err := json.Unmarshal(raw, &rs); err != nil {
		return fmt.Errorf("%s: %w", manifest, err)
	}
	mux := http.NewServeMux()
	for _, r := range rs {
		mux.HandleFunc(r.Path, func(w http.ResponseWriter, _ *http.Request) {
			for k, v := range r.Header {
				w.Header()[k] = v
			}
			w.WriteHeader(http.StatusOK)
			w.Write(r.Body)
		})
	}
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", port))
	if err != nil {
		return err
	}
	fmt.Printf("bare listening on http://%s\n", ln.Addr())
	go func() {
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
		<-sig
		ln.Close()
	}()
	if err := http.Serve(ln, mux); !errors.Is(err, net.ErrClosed) {
		return err
	}
	return nil
}
