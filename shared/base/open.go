package base

import (
	"net/http"
	"net/url"

	"github.com/evalobs/evalapi/shared/auth"
	"github.com/evalobs/evalapi/shared/httpapi"
	"github.com/evalobs/evalapi/shared/validate"
)

// Opening says what a handler's opening reads and checks.
type Opening struct {
	Body  bool  // read a JSON body (httpapi.DecodeBody)
	Limit int64 // the body's cap in bytes; httpapi.MaxBody when 0
	Write bool  // the caller must be able to write (auth.RequireWrite, 403) after validation
	Admin bool  // the caller must administer the organization (auth.RequireAdmin, 403) after validation
}

// Call is a request past its opening: who asks, and what they asked validated.
type Call[In any] struct {
	Caller auth.Caller
	In     In
}

// Input is what a reader reads from: the path, the query and the body of the request, each
// problem recorded in one collector, Errs.
type Input struct {
	Errs    *validate.Errors
	Raw     any  // the decoded body (nil without Opening.Body)
	Present bool // whether a body was sent
	r       *http.Request
	q       url.Values
}

// Path reads the path parameter name.
func (in *Input) Path(name string) validate.Value { return in.Errs.Path(name, in.r.PathValue(name)) }

// Query reads the query parameter name.
func (in *Input) Query(name string) validate.Value { return in.Errs.Query(in.query(), name) }

// Page reads the pagination query parameters starting_token and limit.
func (in *Input) Page() (start, limit int) { return in.Errs.Page(in.query()) }

// Body starts reading the body at ["body"].
func (in *Input) Body() validate.Value { return in.Errs.Body(in.Raw, in.Present) }

// Request is the request read, for a reader that needs more than its path and query.
func (in *Input) Request() *http.Request { return in.r }

func (in *Input) query() url.Values {
	if in.q == nil {
		in.q = in.r.URL.Query()
	}
	return in.q
}

// Open performs the opening of a handler (see the package doc for its steps and order) and
// hands the handler its caller and its validated input.
func Open[In any](r *http.Request, o Opening, read func(*Input) In) (Call[In], error) {
	c, err := Caller(r)
	if err != nil {
		return Call[In]{}, err
	}
	in := &Input{Errs: validate.New(), r: r}
	if o.Body {
		if in.Raw, in.Present, err = httpapi.DecodeBody(r, o.Limit); err != nil {
			return Call[In]{}, err
		}
	}
	v := read(in)
	if err := in.Errs.Err(); err != nil {
		return Call[In]{}, err
	}
	if o.Write {
		if err := auth.RequireWrite(r.Context()); err != nil {
			return Call[In]{}, err
		}
	}
	if o.Admin {
		if err := auth.RequireAdmin(r.Context()); err != nil {
			return Call[In]{}, err
		}
	}
	return Call[In]{Caller: c, In: v}, nil
}

// Readers for the common shapes of input.

// PathID reads the path parameter name, a UUID of the given version (0 for any): the whole
// input of a handler that reads one resource.
func PathID(name string, version int) func(*Input) string {
	return func(in *Input) string {
		id, _ := in.Path(name).UUID(version)
		return id
	}
}

// Keyed is the input of a handler that acts on one resource: its id, from the path, and
// what the body asked.
type Keyed[T any] struct {
	ID  string
	Req T
}

// ByID reads the path parameter name (a UUID of the given version, 0 for any), then the
// body with read: path problems come first in the 422, as FastAPI lists them.
func ByID[T any](name string, version int, read func(errs *validate.Errors, raw any, present bool) T) func(*Input) Keyed[T] {
	return func(in *Input) Keyed[T] {
		id, _ := in.Path(name).UUID(version)
		return Keyed[T]{ID: id, Req: read(in.Errs, in.Raw, in.Present)}
	}
}

// ReadBody reads the body alone, with read: the input of a handler with no path parameter.
func ReadBody[T any](read func(errs *validate.Errors, raw any, present bool) T) func(*Input) T {
	return func(in *Input) T { return read(in.Errs, in.Raw, in.Present) }
}
