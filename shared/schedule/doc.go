// Package schedule is the cron and time-zone engine of scheduled signals runs: it reads the
// five-field cron expression of a signals configuration, translates it to EventBridge
// Scheduler's six-field form, and computes the times it fires in the configuration's time
// zone between its start and end dates, the way EventBridge Scheduler does. Both hosts use
// it: the cloud hands the translation to EventBridge Scheduler (one schedule per
// configuration, see Cloud), `make run` fires the times Next computes (package inproc).
//
// # Grammar
//
// An expression is exactly five fields separated by spaces or tabs:
//
//	minute hour day-of-month month day-of-week
//
// Each field is a comma-separated list of items:
//
//	item     values
//	-----    ------------------------------------------
//	*        every value of the field
//	N        one value
//	N-M      N to M, N <= M (no wrap-around)
//	*/S      every S-th value from the field's first
//	N/S      every S-th value from N to the field's last
//	N-M/S    every S-th value from N to M
//
// with S from 1 to the width of the field minus one, and values
//
//	minute        0-59
//	hour          0-23
//	day-of-month  1-31
//	month         1-12 or JAN-DEC
//	day-of-week   0-7 or SUN-SAT (0 and 7 are Sunday; * and N/S end at 6)
//
// Names are three letters in any case and may end a range (MON-FRI). `?` is accepted as the
// whole day-of-month or day-of-week field and means `*`, as in EventBridge and Quartz.
// Not accepted: seconds or year fields, descriptors (@daily), L, W, #, TZ= prefixes.
//
// Two rules go beyond the grammar, because the cloud scheduler could not honour the
// expression otherwise:
//
//   - One of day-of-month and day-of-week must be `*` (or `?`). Standard cron runs when
//     either restricted day field matches; EventBridge Scheduler requires `?` in one of them
//     and cannot express the "or". Such an expression is refused, not reinterpreted.
//   - The expression must fire at all: a day-of-month that no chosen month has (30 2 *) is
//     refused. 29 February counts (it fires in leap years).
//
// # Time zones and daylight saving time
//
// Times are local wall-clock times in the configuration's IANA time zone. EventBridge
// Scheduler documents its daylight-saving behaviour ("Daylight saving time on EventBridge
// Scheduler", https://docs.aws.amazon.com/scheduler/latest/UserGuide/schedule-types.html,
// and https://repost.aws/knowledge-center/eventbridge-scheduler-adjust-dst): when clocks
// move forward, a time the expression names that does not exist that day is skipped; when
// clocks move back, a repeated time runs only once. Next does the same; of the two instants
// a repeated wall time names it fires at the first (the one before the clocks go back), so
// the second pass through the hour fires nothing.
//
// EventBridge Scheduler invokes with one-minute precision (schedule-types.html, the note on
// 60-second precision): every time Next returns is at a whole minute.
//
// The IANA database is embedded (time/tzdata, about 0.45 MB of binary, 0.1 MB zipped) so that
// a Lambda on provided.al2023, whose image does not promise /usr/share/zoneinfo, knows the
// same zones as a developer machine. The main package of a function that evaluates schedules
// imports it (as functions/signals does), not this package: a shared package's import
// would land in every function that links it (infra/arch_test.go, TestTimeZoneDataOnlyWhereUsed).
package schedule
