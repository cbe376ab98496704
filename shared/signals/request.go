package signals

import (
	"fmt"
	"strings"
	"time"

	"github.com/evalobs/evalapi/shared/notify"
	"github.com/evalobs/evalapi/shared/schedule"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/validate"
)

// The IANA zones (time.LoadLocation below) come from time/tzdata, which functions/signals
// and the local hosts import: not this package, or every function would carry the 0.45 MB
// database, since every one links the groups table (infra/arch_test.go, TestTimeZoneDataOnlyWhereUsed holds it so).

// Bounds and defaults of §2.13 and SPEC-DECISIONS "Signals configuration".
const (
	maxModelLen      = 255
	maxPreferenceLen = 2000
	defaultTimezone  = "UTC"
	scheduleCron     = "CRON"
)

// Severities are the notification severities, lowest first.
var Severities = []string{"LOW", "MEDIUM", "HIGH", "CRITICAL"}

var defaultSeverities = []string{"HIGH", "CRITICAL"}

// logStreamOnly are the fields only the log-stream variant of the body takes, in the order
// they are reported when sent for an experiment.
// webhook_url and webhook_secret go beyond the specification (notifications, docs/SIGNALS.md).
var logStreamOnly = []string{"schedule", "start_date", "end_date", "scheduled_runs_enabled", "notification_severities",
	"webhook_url", "webhook_secret"}

// maxWebhookURLLen bounds webhook_url.
const maxWebhookURLLen = 2048

// putRequest is a validated PUT body, before the run decides the variant.
type putRequest struct {
	model                string
	focusOn, dontFocusOn string
	schedule             *store.SignalsSchedule
	startDate, endDate   *string
	scheduledRuns        bool
	severities           []string
	webhookURL           string                    // "" : none
	webhookSecret        string                    // "" : keep the stored key
	sent                 map[string]validate.Value // log-stream-only fields present in the body
}

// readPut reads the body of the PUT: every field's type and bound, the cron expression, the
// time zone and the order of the dates, all reported at once.
func readPut(errs *validate.Errors, raw any, present bool, checkURL func(string) error) putRequest {
	req := putRequest{sent: map[string]validate.Value{}, severities: defaultSeverities}
	o, ok := errs.Body(raw, present).Required().Object()
	if !ok {
		return req
	}
	for _, name := range logStreamOnly {
		if o.Has(name) {
			req.sent[name] = o.Get(name)
		}
	}
	req.model, _ = o.Get("model").Required().String(validate.MinLen(1), validate.MaxLen(maxModelLen))
	if p, ok := o.Get("user_preferences").Nullable().Object(); ok {
		// Strings with a default of "": absent takes the default, null is a wrong type.
		req.focusOn, _ = p.Get("focus_on").String(validate.MaxLen(maxPreferenceLen))
		req.dontFocusOn, _ = p.Get("dont_focus_on").String(validate.MaxLen(maxPreferenceLen))
	}
	req.schedule = readSchedule(o.Get("schedule"))
	start, okStart := o.Get("start_date").Nullable().Date()
	end, okEnd := o.Get("end_date").Nullable().Date()
	if okStart {
		req.startDate = datePtr(start)
	}
	if okEnd {
		req.endDate = datePtr(end)
	}
	if okStart && okEnd && end.Before(start) {
		o.Get("end_date").Fail(fmt.Sprintf("end_date %s is before start_date %s", *req.endDate, *req.startDate))
	}
	req.scheduledRuns, _ = o.Get("scheduled_runs_enabled").Nullable().Bool()
	if items, ok := o.Get("notification_severities").Nullable().List(); ok {
		req.severities = []string{}
		seen := map[string]bool{}
		for _, it := range items {
			s, ok := it.Enum(Severities...)
			if ok && !seen[s] {
				seen[s] = true
				req.severities = append(req.severities, s)
			}
		}
	}
	if u, ok := o.Get("webhook_url").Nullable().String(validate.MinLen(1), validate.MaxLen(maxWebhookURLLen)); ok {
		if checkURL != nil && checkURL(u) != nil {
			o.Get("webhook_url").Fail("webhook_url must be an https URL of a public host, without credentials, query or fragment")
		} else {
			req.webhookURL = u
		}
	}
	if sec, ok := o.Get("webhook_secret").Nullable().String(); ok {
		if _, err := notify.ParseSecret(sec); err != nil {
			// The message never repeats the value: it is a key.
			o.Get("webhook_secret").Fail("webhook_secret must be whsec_ followed by the base64 of 24 to 64 bytes")
		} else {
			req.webhookSecret = sec
		}
	}
	return req
}

// readSchedule reads {cron, type, timezone}: cron required and five standard fields, type
// "CRON", timezone an IANA name (default "UTC").
func readSchedule(v validate.Value) *store.SignalsSchedule {
	o, ok := v.Nullable().Object()
	if !ok {
		return nil
	}
	s := store.SignalsSchedule{Type: scheduleCron, Timezone: defaultTimezone}
	cronV := o.Get("cron").Required()
	expr, okCron := cronV.String(validate.MinLen(1))
	if okCron {
		if msg := checkCron(expr); msg != "" {
			cronV.Fail(msg)
			okCron = false
		}
	}
	if t, ok := o.Get("type").Literal(scheduleCron); ok {
		s.Type = t
	}
	tzV := o.Get("timezone")
	tz, okTZ := tzV.String(validate.MinLen(1))
	if okTZ {
		if msg := checkTimezone(tz); msg != "" {
			tzV.Fail(msg)
		} else {
			s.Timezone = tz
		}
	}
	if !okCron {
		return nil
	}
	s.Cron = strings.Join(strings.Fields(expr), " ")
	return &s
}

// checkCron returns why expr is not a cron expression the scheduler can run, or "": the
// grammar of shared/schedule, which refuses what EventBridge Scheduler cannot translate
// (both day fields restricted, a day that never occurs).
func checkCron(expr string) string {
	if _, err := schedule.Parse(expr); err != nil {
		return err.Error()
	}
	return ""
}

// checkTimezone returns why tz is not an IANA time zone name, or "". "Local" names the
// server's zone, not one the caller can mean.
func checkTimezone(tz string) string {
	if _, err := schedule.LoadLocation(tz); err != nil {
		return err.Error()
	}
	return ""
}

func datePtr(d time.Time) *string {
	s := d.Format(time.DateOnly)
	return &s
}
