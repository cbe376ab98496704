package signalsworker

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/eventbridge"
	ebtypes "github.com/aws/aws-sdk-go-v2/service/eventbridge/types"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	lambdatypes "github.com/aws/aws-sdk-go-v2/service/lambda/types"
	"github.com/aws/aws-sdk-go-v2/service/scheduler"

	"github.com/evalobs/evalapi/shared/app"
	"github.com/evalobs/evalapi/shared/notify"
	"github.com/evalobs/evalapi/shared/schedule/ebscheduler"
	"github.com/evalobs/evalapi/shared/signals"
)

// Environment of the signals functions (template.yaml sets them).
const (
	EnvWorkerARN     = "SIGNALS_WORKER_ARN"     // the worker function the API invokes and the schedules target
	EnvSchedulerRole = "SIGNALS_SCHEDULER_ROLE" // the role EventBridge Scheduler assumes (may invoke only the worker)
	EnvScheduleGroup = "SIGNALS_SCHEDULE_GROUP" // the stack's schedule group
	EnvEventBus      = "SIGNALS_EVENT_BUS"      // the bus findings go to; "" is "default"
)

// EventSource and EventDetailType name the findings put on the EventBridge bus.
const (
	EventSource     = "evalapi.signals"
	EventDetailType = notify.EventTypeFinding
)

// Cloud fills d's signals ports from the environment (the API function: start the worker,
// keep the schedules) and returns the worker (the worker function).
func Cloud(d *app.Deps, getenv func(string) string) (*signals.Worker, error) {
	awsCfg, err := app.LambdaAWSConfig(getenv)
	if err != nil {
		return nil, err
	}
	workerARN := getenv(EnvWorkerARN)
	if workerARN == "" {
		return nil, fmt.Errorf("signals: %s is not set (template.yaml sets it)", EnvWorkerARN)
	}
	lc := lambda.NewFromConfig(awsCfg)
	d.Signals.StartWorker = func(ctx context.Context, input []byte) error {
		_, err := lc.Invoke(ctx, &lambda.InvokeInput{FunctionName: aws.String(workerARN),
			InvocationType: lambdatypes.InvocationTypeEvent, Payload: input})
		if err != nil {
			return fmt.Errorf("signals: invoking the worker: %w", err)
		}
		return nil
	}
	sch, err := ebscheduler.New(scheduler.NewFromConfig(awsCfg), ebscheduler.Config{GroupName: getenv(EnvScheduleGroup),
		TargetARN: workerARN, RoleARN: getenv(EnvSchedulerRole)})
	if err != nil {
		return nil, err
	}
	d.Signals.Schedules = sch
	bus := &EventBridge{API: eventbridge.NewFromConfig(awsCfg), Bus: getenv(EnvEventBus)}
	r := Runner(*d, Model, Publisher(*d, bus))
	return &signals.Worker{Runner: r, Schedules: sch, Lister: sch, Log: d.Log}, nil
}

// EventsAPI is the part of the EventBridge client used here.
type EventsAPI interface {
	PutEvents(ctx context.Context, in *eventbridge.PutEventsInput, opts ...func(*eventbridge.Options)) (*eventbridge.PutEventsOutput, error)
}

// EventBridge publishes events on an EventBridge bus: source EventSource, detail-type
// EventDetailType, the event as detail.
type EventBridge struct {
	API EventsAPI
	Bus string // "" : the account's default bus
}

// Publish puts e on the bus.
func (p *EventBridge) Publish(ctx context.Context, e notify.Event) error {
	detail, err := json.Marshal(e)
	if err != nil {
		return err
	}
	bus := p.Bus
	if bus == "" {
		bus = "default"
	}
	out, err := p.API.PutEvents(ctx, &eventbridge.PutEventsInput{Entries: []ebtypes.PutEventsRequestEntry{{
		EventBusName: aws.String(bus), Source: aws.String(EventSource), DetailType: aws.String(EventDetailType),
		Detail: aws.String(string(detail)), Resources: []string{},
	}}})
	if err != nil {
		return fmt.Errorf("signals: putting event %s: %w", e.ID, err)
	}
	if out.FailedEntryCount > 0 {
		return fmt.Errorf("signals: putting event %s: %s", e.ID, aws.ToString(out.Entries[0].ErrorCode))
	}
	return nil
}
