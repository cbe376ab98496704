// Package otlp reads OTLP trace exports (protobuf and OTLP/JSON) into plain structs and
// maps their spans onto the service's records with the GenAI and OpenInference semantic
// conventions (docs/OTEL.md).
//
// The protobuf form is decoded by hand with protowire rather than with the generated
// go.opentelemetry.io/proto/otlp types: those bring the protobuf runtime's reflection
// (about 1.5 MB) into the traces Lambda, which would pass the 10 MB bootstrap cap. The
// generated types are used in tests, to prove both decoders read the same exports.
package otlp

// Export is one export request (ExportTraceServiceRequest; TracesData has the same wire
// form): the spans of each resource.
type Export struct {
	Resources []ResourceSpans
}

// ResourceSpans are the spans of one resource (one instrumented process), over all of
// its instrumentation scopes.
type ResourceSpans struct {
	Attrs []KeyValue
	Spans []Span
}

// Span is one OTel span.
type Span struct {
	TraceID      [16]byte
	SpanID       [8]byte
	ParentSpanID [8]byte // zero for a root span
	Name         string
	Kind         int32
	Start, End   uint64 // Unix nanoseconds
	Attrs        []KeyValue
	Events       []Event
	Status       Status
	Scope        string // the instrumentation scope's name
}

// IsRoot reports whether the span has no parent.
func (s *Span) IsRoot() bool { return s.ParentSpanID == [8]byte{} }

// Event is a span event (the older GenAI conventions carry messages in them).
type Event struct {
	Time  uint64
	Name  string
	Attrs []KeyValue
}

// Status codes of a span.
const (
	StatusUnset int32 = 0
	StatusOK    int32 = 1
	StatusError int32 = 2
)

// Status is a span's status.
type Status struct {
	Code    int32
	Message string
}

// KeyValue is one attribute.
type KeyValue struct {
	Key   string
	Value Value
}

// Kinds of Value.
const (
	KindEmpty = iota
	KindString
	KindBool
	KindInt
	KindDouble
	KindArray
	KindMap
	KindBytes
)

// Value is an AnyValue: exactly the field of Kind is set.
type Value struct {
	Kind   int
	Str    string
	Bool   bool
	Int    int64
	Double float64
	Array  []Value
	Map    []KeyValue
	Bytes  []byte
}

// SpanCount is the number of spans of the export.
func (e *Export) SpanCount() int {
	n := 0
	for _, r := range e.Resources {
		n += len(r.Spans)
	}
	return n
}
