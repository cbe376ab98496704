// Package records is the write model of logged records: how traces, their spans and their
// sessions are stored and how every write keeps the run's derived items exact. It holds
// ingestion (one transaction per chunk of traces, with the run summary, the column summary,
// the session claims and the per-minute roll-ups folded in), revisions of a stored trace (a
// patch, a span appended, a deletion: the old contribution out and the new one in, with the
// extremes a removed value may have held recomputed, and a repair marker in the same
// transaction that the stream consumer's Repairer completes when a failure cut the
// recompute off), score writes of the evaluator (a
// trace's or a span's metric values, written once under redelivery) and the runner's
// traces of an experiment.
//
// It sits below the HTTP groups and the workers (ARCHITECTURE.md §3): the traces group,
// the evaluator, the experiment runner and the demo loader write through it, and it imports
// no group. Its errors are plain: sentinels (ErrBusy, ErrRevised, ErrTooLarge, ErrScoreRecordGone) that
// the handlers map to HTTP answers (the traces group's writeError), and validation errors of
// shared/validate, which carry their loc.
//
// The values of a trace by catalog column (TextField, GroupValues, ...) live here too: the
// roll-ups are kept by them at write time, and the searches read by them.
package records
