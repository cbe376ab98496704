package dynamo

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/evalobs/evalapi/shared/awscall"
	"github.com/evalobs/evalapi/shared/store"
)

// TestTransactRetrySendsSameToken: a transaction whose first answer is lost (a 500 here) is
// sent again with the same ClientRequestToken, so DynamoDB answers the retry as the first
// attempt instead of refusing it on its own conditions; another call has another token.
func TestTransactRetrySendsSameToken(t *testing.T) {
	var (
		mu     sync.Mutex
		bodies []string
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		defer mu.Unlock()
		bodies = append(bodies, string(b))
		if len(bodies) == 1 {
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		_, _ = w.Write([]byte(`{}`))
	}))
	defer srv.Close()
	c := awscall.DynamoDB(awscall.NewSigner("us-east-1", credentials.NewStaticCredentialsProvider("a", "b", "")), srv.URL)
	tbl := New(c, "tbl")
	ops := []store.Op{store.PutOp(store.Item{"PK": "P", "SK": "1"})}
	for range 2 {
		if err := tbl.Transact(t.Context(), ops); err != nil {
			t.Fatal(err)
		}
	}
	if len(bodies) != 3 {
		t.Fatalf("%d requests, want 3", len(bodies))
	}
	token := func(b string) string {
		var in struct{ ClientRequestToken string }
		if err := json.Unmarshal([]byte(b), &in); err != nil {
			t.Fatal(err)
		}
		return in.ClientRequestToken
	}
	if token(bodies[0]) == "" || bodies[0] != bodies[1] || token(bodies[2]) == token(bodies[0]) {
		t.Errorf("tokens %q %q %q; the retry's body must equal the first", token(bodies[0]), token(bodies[1]), token(bodies[2]))
	}
}
