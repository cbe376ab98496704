package infra_test

import (
	"strings"
	"testing"

	"github.com/evalobs/evalapi/shared/schedule"
)

// workerARN is how the template names the signals worker's ARN (its FunctionName is fixed,
// so that the API function, the scheduler role and the worker itself name it without a
// reference cycle).
const workerARN = "Sub arn:${AWS::Partition}:lambda:${AWS::Region}:${AWS::AccountId}:function:${AWS::StackName}-signals-worker"

// TestTemplateSignalsScheduler: the role EventBridge Scheduler assumes can invoke the signals
// worker and nothing else, only the scheduler service can assume it, every schedule of the
// template targets the worker with it, and the configurations' schedules are named by
// configuration id (schedule.NamePrefix + id, one name per configuration, so a replace is an
// update of the same schedule and never leaves two) in the stack's group.
func TestTemplateSignalsScheduler(t *testing.T) {
	tpl := loadTemplate(t)
	worker, ok := tpl.Resources["SignalsWorkerFunction"]
	if !ok || worker.Type != "AWS::Serverless::Function" {
		t.Fatal("no SignalsWorkerFunction")
	}
	if got := "Sub arn:${AWS::Partition}:lambda:${AWS::Region}:${AWS::AccountId}:function:" + strings.TrimPrefix(describe(worker.Props["FunctionName"]), "Sub "); got != workerARN {
		t.Fatalf("the worker's name %v does not give %s", worker.Props["FunctionName"], workerARN)
	}

	role, ok := tpl.Resources["SignalsSchedulerRole"]
	if !ok || role.Type != "AWS::IAM::Role" {
		t.Fatal("no SignalsSchedulerRole")
	}
	trust := list(dig(role.Props, "AssumeRolePolicyDocument", "Statement"))
	if len(trust) != 1 || describe(dig(trust[0], "Principal", "Service")) != "scheduler.amazonaws.com" ||
		dig(trust[0], "Condition", "StringEquals", "aws:SourceAccount") == nil {
		t.Errorf("the scheduler role's trust is not the scheduler service of this account only: %v", trust)
	}
	if role.Props["ManagedPolicyArns"] != nil || role.Props["PermissionsBoundary"] != nil {
		t.Error("the scheduler role has managed policies: it may invoke the worker only")
	}
	sts := tpl.statementsOf(t, role)
	if len(sts) != 1 {
		t.Fatalf("the scheduler role has %d statements, want the one that invokes the worker", len(sts))
	}
	if a, r := strs(dig(sts[0], "Action")), list(dig(sts[0], "Resource")); len(a) != 1 || a[0] != "lambda:InvokeFunction" ||
		len(r) != 1 || describe(r[0]) != workerARN || str(dig(sts[0], "Effect")) != "Allow" {
		t.Errorf("the scheduler role may do %v on %v, want lambda:InvokeFunction on the signals worker only", a, r)
	}

	// Who may invoke the worker: the scheduler role and the API function (on-demand runs).
	for _, r := range tpl.Resources {
		for _, st := range tpl.statementsOf(t, r) {
			for _, a := range strs(dig(st, "Action")) {
				if !strings.HasPrefix(a, "lambda:") {
					continue
				}
				for _, res := range list(dig(st, "Resource")) {
					if describe(res) != workerARN || (r.ID != "SignalsSchedulerRole" && r.ID != "SignalsFunction") {
						t.Errorf("%s may %s on %s", r.ID, a, describe(res))
					}
				}
			}
		}
	}
	for _, fn := range []string{"SignalsFunction", "SignalsWorkerFunction"} {
		vars := dig(tpl.Resources[fn].Props, "Environment", "Variables")
		if describe(dig(vars, "SIGNALS_WORKER_ARN")) != workerARN || describe(dig(vars, "SIGNALS_SCHEDULER_ROLE")) != "GetAtt SignalsSchedulerRole.Arn" ||
			describe(dig(vars, "SIGNALS_SCHEDULE_GROUP")) != "Ref SignalsScheduleGroup" {
			t.Errorf("%s: signals environment %v", fn, vars)
		}
	}

	// The template's own schedules (the reconcile) target the worker with the role, and
	// are not named like a configuration's (the reconcile would delete them).
	for _, s := range tpl.ofType("AWS::Scheduler::Schedule") {
		if describe(dig(s.Props, "Target", "Arn")) != "GetAtt SignalsWorkerFunction.Arn" ||
			describe(dig(s.Props, "Target", "RoleArn")) != "GetAtt SignalsSchedulerRole.Arn" {
			t.Errorf("schedule %s targets %v", s.ID, dig(s.Props, "Target"))
		}
		if strings.HasPrefix(str(s.Props["Name"]), schedule.NamePrefix) {
			t.Errorf("schedule %s is named like a configuration's schedule", s.ID)
		}
	}

	// The configurations' schedules: written only under the prefix, in the stack's group.
	group := str(dig(tpl.Resources["SignalsScheduleGroup"].Props, "Name"))
	if group == "" {
		group = describe(dig(tpl.Resources["SignalsScheduleGroup"].Props, "Name"))
	}
	want := "Sub arn:${AWS::Partition}:scheduler:${AWS::Region}:${AWS::AccountId}:schedule/${AWS::StackName}-signals/" + schedule.NamePrefix + "*"
	if group != "Sub ${AWS::StackName}-signals" {
		t.Errorf("schedule group name %s", group)
	}
	found := false
	for _, st := range tpl.statementsOf(t, tpl.Resources["SignalsSchedulesPolicy"]) {
		for _, a := range strs(dig(st, "Action")) {
			if a == "scheduler:CreateSchedule" || a == "scheduler:UpdateSchedule" || a == "scheduler:DeleteSchedule" {
				found = true
				for _, r := range list(dig(st, "Resource")) {
					if describe(r) != want {
						t.Errorf("%s on %s, want %s", a, describe(r), want)
					}
				}
			}
		}
	}
	if !found {
		t.Error("SignalsSchedulesPolicy does not write schedules")
	}
	id := "0e4b5d7c-1f2a-4b3c-9d8e-7f6a5b4c3d2e"
	if name, err := schedule.ScheduleName(id); err != nil || name != schedule.NamePrefix+id {
		t.Errorf("ScheduleName(%s) = %q, %v", id, name, err)
	}
}
