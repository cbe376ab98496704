package evaluate

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// messageVersion is the shape of the queue's messages; a consumer drops shapes it does not
// know (an old message after a deploy that changed them is logged, not retried forever).
const messageVersion = 1

// Message asks for one (record, scorer) judgment. It holds ids and the record's creation
// time (which, with the ids, is the record's key) and never content or credentials.
type Message struct {
	V             int       `json:"v"`
	OrgID         string    `json:"org"`
	ProjectID     string    `json:"project"`
	RunID         string    `json:"run"`
	Kind          string    `json:"kind"`
	RecordID      string    `json:"id"`
	TraceID       string    `json:"trace,omitempty"` // a span's trace (its key's partition)
	CreatedAt     time.Time `json:"created_at"`
	ScorerID      string    `json:"scorer"`
	ScorerVersion int64     `json:"version"`
	// Seen is the trace's last client write the dispatcher saw, for a trace judged after its
	// quiet period (empty: the trace was complete). A later write sent messages of its own,
	// so a message whose Seen is no longer the trace's last write is dropped.
	Seen string `json:"seen,omitempty"`
	// Job names the evaluate job that sent the message (empty for the dispatcher's).
	Job string `json:"job,omitempty"`
}

var errBadMessage = errors.New("malformed message")

func (m Message) encode() []byte {
	b, _ := json.Marshal(m) // only strings, numbers and a time
	return b
}

func decodeMessage(b []byte) (Message, error) {
	var m Message
	if err := json.Unmarshal(b, &m); err != nil {
		return Message{}, fmt.Errorf("%w: %v", errBadMessage, err)
	}
	if m.V != messageVersion || m.OrgID == "" || m.RunID == "" || m.RecordID == "" || m.ScorerID == "" ||
		(m.Kind != KindTrace && (m.Kind != KindSpan || m.TraceID == "")) {
		return Message{}, fmt.Errorf("%w: version %d kind %q", errBadMessage, m.V, m.Kind)
	}
	return m, nil
}
