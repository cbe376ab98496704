// Package base is what every operation group is built on: the dependencies all groups take
// (with their defaults), the caller of a request, the clock stamp records carry, the
// project lookup with its 404, and the opening of a handler. A group's Deps embeds Deps and
// adds what only it needs, so the plumbing exists once and a group's register.go holds its
// routes and little else.
//
// # The opening of a handler
//
// Handlers used to open with the same ten to fifteen lines: decode the body, read the path,
// the query and the body into a validate.Errors and answer it, fetch the caller, check that
// the caller may write. Open is that sequence, written once:
//
//	func Open[In any](r *http.Request, o Opening, read func(*Input) In) (Call[In], error)
//
//	type Opening struct{ Body bool; Limit int64; Write, Admin bool }
//	type Call[In any] struct{ Caller auth.Caller; In In }
//
// It goes in FastAPI's order:
//
//  1. authentication: the caller, else 401. The middleware has answered a request without
//     a credential already, so in a mounted route this step does not fail; it comes first
//     so that a route mounted without the middleware answers 401 whatever its input.
//  2. the body, with o.Body: over o.Limit (httpapi.MaxBody when 0) it is 413, and malformed
//     JSON is the single json_invalid problem, answered alone: FastAPI parses the body
//     before it validates anything, so the path is not reported with it.
//  3. validation: read reads the path, the query and the body into one collector (Input),
//     and every problem is answered in one 422. read decides the order of the detail
//     list; the readers read path, query, body (FastAPI's order) unless the handler says
//     why not.
//  4. with o.Write or o.Admin, the role check (403): for the handlers whose write check
//     came right after validation, with no lookup between.
//
// Existence and permission (404/403) are the group's own one call, made right after Open
// with the validated input: datasets' grant and editable, Deps.Project, scorers' loadScorer,
// projects' findLogStream, integrations' visible, experiments' experiment, job and template.
// Open does not take that step as a parameter: it is keyed by a field of the typed input, and
// a generic step (func(ctx, auth.Caller, In) (G, error)) made every call site spell In and G
// out in a function literal longer than the call it wraps. Where a handler checks write
// access after that step (a read-only caller asking for a missing project is told 404, not
// 403), its auth.RequireWrite stays after it.
//
// The readers of the common shapes are here too: PathID (one id from the path), ByID (an id
// from the path, then the body with a group's reader), ReadBody (the body alone) and
// ReadList (a page, filters and a sort).
//
// # Where Open is not used, and why
//
//   - Handlers with no input (identity's currentUser, listAPIKeys, logoutEverywhere):
//     base.Caller is their whole opening.
//   - The session endpoints (identity's login, loginAPIKey, logout, refresh): they have no
//     caller yet, or authenticate from the request themselves; login reads a form.
//   - datasets' create: JSON or a multipart form, whose file is parsed in stages (a file
//     that does not parse is a 422 of its own after the form's), and a read-only caller is
//     refused before the project named is looked up.
//   - identity's addGroupMembers: its body's problems, malformed JSON included, are listed
//     after a bad group id in one 422; Open answers malformed JSON alone, so opening it
//     with Open would change that answer.
//   - docs: static documents, no caller, no input.
//   - traces' appendSpans: its spans are read against their trace once the trace is found,
//     into the opening's own collector, so that a span's problems and the body's land in
//     one 422; Open hands back the input, not the collector.
//   - traces' OTLP ingestion (otelTraces): a 415 for the content type first, and a protobuf
//     or JSON body of its own reader.
//   - traces' PATCHes use Open without Write: a body naming another record than the path is
//     a 422 for any caller, checked before the write check.
//
// Handlers that read a form or read their body twice use Open still: scorers' code
// version reads its form first (a body that is not a form, or too large, is answered alone,
// as a malformed JSON body is), and datasets' append reads its body's shape in the opening
// and its rows against the dataset's columns once the dataset is known.
//
// # Order quirks kept (no answer changed)
//
//   - experiments' start and addTemplateVersion read the body before the path, and
//     getTemplateVersion and selectTemplateVersion the version number before the project
//     and template ids: their 422s list those problems first.
//   - signals' lists (runs, findings) answer a bad query alone, before the path is read.
//   - Some checks need the resource, so a 422 can follow a 404/403: scorers' rules against
//     the scorer, datasets' rows against the columns, signals' experiment-only fields,
//     projects' scorer ids against the log stream, identity's own role or state change.
//   - identity's updateUser and deleteUser ask admin rights (403) before they look the user
//     up (404); addGroupMembers looks the group up first.
//   - The 401 now comes before everything; handlers used to validate first (no answer
//     changes behind the middleware). experiments' createTemplate and listTemplates acted
//     for a zero caller when none was in the context; they answer 401 too.
package base
