// Tests that hold template.yaml (the SAM template) to the rest of the repository:
//   - the table resource has exactly the shape of store.TableSchema;
//   - every function is a provided.al2023 / arm64 / bootstrap / makefile-built Go binary with
//     a build-<LogicalId> target in the Makefile, the common environment, JSON logging and
//     its own log group with a retention;
//   - the HttpApi routes are the path roots of shared/app/groups (template_routes_test.go);
//   - permissions are least privilege: the exact DynamoDB and Secrets Manager grants per
//     request handler, never Scan, never a wildcard action or resource.
//
// cfn-lint, sam validate --lint and sam build run in infra/scripts/template-check.sh.
package infra_test

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/evalobs/evalapi/shared/store"
)

const (
	templatePath = "../template.yaml"
	makefilePath = "../Makefile"
	functionsDir = "../functions"
)

// Environment every function gets, and what each function adds.
var (
	commonEnv   = []string{"TABLE_NAME", "SECRETS_PREFIX", "JWT_SECRET_ARN", "API_KEY_PEPPER_ARN", "LOG_LEVEL"}
	functionEnv = map[string][]string{"IdentityFunction": {"ACCESS_TOKEN_TTL", "REFRESH_TOKEN_TTL"},
		"TracesFunction": {"PAYLOAD_BUCKET"}, "DatasetsFunction": {"PAYLOAD_BUCKET"}, "StreamFunction": {"PAYLOAD_BUCKET", "EVAL_QUEUE_URL", "EVAL_QUIET_PERIOD"},
		"EvaluatorFunction":     {"PAYLOAD_BUCKET", "EVAL_MAX_RECEIVE_COUNT"},
		"SignalsFunction":       {"SIGNALS_WORKER_ARN", "SIGNALS_SCHEDULER_ROLE", "SIGNALS_SCHEDULE_GROUP"},
		"SignalsWorkerFunction": {"PAYLOAD_BUCKET", "SIGNALS_WORKER_ARN", "SIGNALS_SCHEDULER_ROLE", "SIGNALS_SCHEDULE_GROUP"}}
)

// The item-level DynamoDB actions a request handler has on the table (transactions are
// authorised per underlying action); on the indexes it only queries.
var tableActions = []string{
	"dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem",
	"dynamodb:Query", "dynamodb:BatchGetItem", "dynamodb:BatchWriteItem", "dynamodb:ConditionCheckItem",
}

// Secrets Manager actions of the function that stores integration credentials, on
// "${SecretsPrefix}integrations/*" only.
var integrationSecretActions = []string{
	"secretsmanager:CreateSecret", "secretsmanager:PutSecretValue", "secretsmanager:GetSecretValue",
	"secretsmanager:DeleteSecret", "secretsmanager:TagResource",
}

func TestTemplateTableMatchesDefinition(t *testing.T) {
	tpl := loadTemplate(t)
	tables := tpl.ofType("AWS::DynamoDB::Table")
	if len(tables) != 1 || len(tpl.ofType("AWS::Serverless::SimpleTable")) != 0 {
		t.Fatalf("want exactly one AWS::DynamoDB::Table and no SimpleTable, got tables %v", ids(tables))
	}
	tb := tables[0]
	p := tb.Props

	got := store.Schema{
		StreamView:   str(dig(p, "StreamSpecification", "StreamViewType")),
		TTLAttribute: str(dig(p, "TimeToLiveSpecification", "AttributeName")),
	}
	got.PartitionKey, got.SortKey = keySchema(t, "table", dig(p, "KeySchema"))
	for _, g := range list(dig(p, "GlobalSecondaryIndexes")) {
		name := str(dig(g, "IndexName"))
		pk, sk := keySchema(t, "index "+name, dig(g, "KeySchema"))
		got.Indexes = append(got.Indexes, store.IndexDef{Name: name, PartitionKey: pk, SortKey: sk})
		if pt := str(dig(g, "Projection", "ProjectionType")); pt != "ALL" {
			t.Errorf("index %s: projection %q, want ALL", name, pt)
		}
	}
	want := store.TableSchema
	want.Indexes = slices.Clone(want.Indexes)
	sortIndexes(got.Indexes)
	sortIndexes(want.Indexes)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("table %s in template.yaml disagrees with store.TableSchema:\n template:    %+v\n schema:      %+v", tb.ID, got, want)
	}
	if v := dig(p, "LocalSecondaryIndexes"); v != nil {
		t.Errorf("table %s has LocalSecondaryIndexes, which store.TableSchema does not define", tb.ID)
	}
	if v := dig(p, "TimeToLiveSpecification", "Enabled"); v != true {
		t.Errorf("TTL Enabled = %v, want true", v)
	}

	// Attribute definitions: exactly the key attributes of the table and its indexes, strings.
	var defined []string
	for _, a := range list(dig(p, "AttributeDefinitions")) {
		name := str(dig(a, "AttributeName"))
		if typ := str(dig(a, "AttributeType")); typ != "S" {
			t.Errorf("attribute %s has type %q, want S", name, typ)
		}
		defined = append(defined, name)
	}
	wantAttrs := uniqueSorted(store.TableSchema.KeyAttributes())
	if got := uniqueSorted(defined); !slices.Equal(got, wantAttrs) || len(defined) != len(got) {
		t.Errorf("AttributeDefinitions %v, want each of %v once", defined, wantAttrs)
	}

	// What the issue asks of the table besides its shape.
	for path, want := range map[string]any{
		"BillingMode": "PAY_PER_REQUEST",
		"PointInTimeRecoverySpecification.PointInTimeRecoveryEnabled": true,
		"SSESpecification.SSEEnabled":                                 true,
	} {
		if got := dig(p, strings.Split(path, ".")...); got != want {
			t.Errorf("table %s: %s = %v, want %v", tb.ID, path, got, want)
		}
	}
}

func TestTemplateFunctions(t *testing.T) {
	tpl := loadTemplate(t)
	fns := tpl.functions()
	if len(fns) == 0 {
		t.Fatal("no AWS::Serverless::Function in template.yaml")
	}
	tableID := ""
	if tables := tpl.ofType("AWS::DynamoDB::Table"); len(tables) == 1 {
		tableID = tables[0].ID
	}
	makeTargets := makefileFunctions(t)
	logGroupOwner := map[string]string{}

	for _, fn := range fns {
		t.Run(fn.ID, func(t *testing.T) {
			p := fn.Props
			for key, want := range map[string]any{
				"Runtime": "provided.al2023", "Handler": "bootstrap", "CodeUri": ".",
			} {
				if got := p[key]; got != want {
					t.Errorf("%s = %v, want %v", key, got, want)
				}
			}
			if got := list(p["Architectures"]); !reflect.DeepEqual(got, []any{"arm64"}) {
				t.Errorf("Architectures = %v, want [arm64]", got)
			}
			if got := dig(fn.Metadata, "BuildMethod"); got != "makefile" {
				t.Errorf("Metadata.BuildMethod = %v, want makefile", got)
			}

			// The Makefile builds it: FUNCTIONS has <LogicalId>=<dir>, and functions/<dir> exists.
			dir, ok := makeTargets[fn.ID]
			if !ok {
				t.Errorf("Makefile FUNCTIONS has no %s=<dir> entry (so no build-%s target for sam build)", fn.ID, fn.ID)
			} else if st, err := os.Stat(filepath.Join(functionsDir, dir)); err != nil || !st.IsDir() {
				t.Errorf("Makefile maps %s to functions/%s, which is not a directory", fn.ID, dir)
			}

			// Environment.
			vars, _ := dig(p, "Environment", "Variables").(map[string]any)
			for _, name := range append(slices.Clone(commonEnv), functionEnv[fn.ID]...) {
				if _, ok := vars[name]; !ok {
					t.Errorf("environment variable %s missing", name)
				}
			}
			if got := ref(vars["TABLE_NAME"]); got == "" || got != tableID {
				t.Errorf("TABLE_NAME = %v, want !Ref %s", vars["TABLE_NAME"], tableID)
			}
			for _, name := range []string{"JWT_SECRET_ARN", "API_KEY_PEPPER_ARN"} {
				sec, ok := tpl.Resources[ref(vars[name])]
				if !ok || sec.Type != "AWS::SecretsManager::Secret" || dig(sec.Props, "GenerateSecretString") == nil {
					t.Errorf("%s = %v, want !Ref to an AWS::SecretsManager::Secret with GenerateSecretString", name, vars[name])
				}
			}

			// Logging: JSON, into the function's own log group, which has a retention.
			if got := dig(p, "LoggingConfig", "LogFormat"); got != "JSON" {
				t.Errorf("LoggingConfig.LogFormat = %v, want JSON", got)
			}
			lg := ref(dig(p, "LoggingConfig", "LogGroup"))
			res, ok := tpl.Resources[lg]
			switch {
			case !ok || res.Type != "AWS::Logs::LogGroup":
				t.Errorf("LoggingConfig.LogGroup = %v, want !Ref to an AWS::Logs::LogGroup", dig(p, "LoggingConfig", "LogGroup"))
			case res.Props["RetentionInDays"] == nil:
				t.Errorf("log group %s has no RetentionInDays", lg)
			case logGroupOwner[lg] != "":
				t.Errorf("log group %s is shared with %s", lg, logGroupOwner[lg])
			default:
				logGroupOwner[lg] = fn.ID
			}
		})
	}
	for id := range makeTargets {
		if r, ok := tpl.Resources[id]; !ok || r.Type != "AWS::Serverless::Function" {
			t.Errorf("Makefile FUNCTIONS lists %s, which is no function of template.yaml", id)
		}
	}
}

func TestTemplateLeastPrivilege(t *testing.T) {
	tpl := loadTemplate(t)
	tables := tpl.ofType("AWS::DynamoDB::Table")
	if len(tables) != 1 {
		t.Fatal("want exactly one table")
	}
	tableArn := "GetAtt " + tables[0].ID + ".Arn"
	indexArn := "Sub ${" + tables[0].ID + ".Arn}/index/*"
	integrations := "Sub arn:${AWS::Partition}:secretsmanager:${AWS::Region}:${AWS::AccountId}:secret:${SecretsPrefix}integrations/*"
	webhookKeys := "Sub arn:${AWS::Partition}:secretsmanager:${AWS::Region}:${AWS::AccountId}:secret:${SecretsPrefix}signals-webhooks/*"

	// No statement anywhere grants a wildcard or Scan.
	for _, r := range tpl.Resources {
		for _, st := range tpl.statementsOf(t, r) {
			checkStatement(t, r.ID, st)
		}
	}

	for _, fn := range tpl.functions() {
		if !hasHTTPEvents(fn) {
			continue // not a request handler (e.g. a stream worker): only the rules above apply
		}
		t.Run(fn.ID, func(t *testing.T) {
			vars, _ := dig(fn.Props, "Environment", "Variables").(map[string]any)
			want := grants{}
			if staticFunctions[fn.ID] {
				checkGrants(t, tpl, fn, want)
				return
			}
			for _, a := range tableActions {
				want.add(a, tableArn)
			}
			want.add("dynamodb:Query", indexArn)
			want.add("secretsmanager:GetSecretValue", "Ref "+ref(vars["JWT_SECRET_ARN"]))
			want.add("secretsmanager:GetSecretValue", "Ref "+ref(vars["API_KEY_PEPPER_ARN"]))
			if fn.ID == "IntegrationsFunction" {
				for _, a := range integrationSecretActions {
					want.add(a, integrations)
				}
			}
			if fn.ID == "SignalsFunction" { // the webhooks' HMAC keys, written with the configuration
				for _, a := range integrationSecretActions {
					want.add(a, webhookKeys)
				}
			}

			checkGrants(t, tpl, fn, want)
		})
	}
}

// TestTemplateEvaluationPrivilege: only the dispatcher (the stream function) sends to the
// evaluation queue, and of the workers only the evaluator reads integration secrets.
func TestTemplateEvaluationPrivilege(t *testing.T) {
	tpl := loadTemplate(t)
	for _, fn := range tpl.functions() {
		sends, readsIntegrations := false, false
		for _, st := range tpl.functionStatements(t, fn) {
			if str(dig(st, "Effect")) != "Allow" {
				continue
			}
			for _, a := range strs(dig(st, "Action")) {
				for _, r := range list(dig(st, "Resource")) {
					d := describe(r)
					if strings.HasPrefix(a, "sqs:Send") && strings.Contains(d, "EvaluationQueue") {
						sends = true
					}
					if a == "secretsmanager:GetSecretValue" && strings.Contains(d, "integrations/") {
						readsIntegrations = true
					}
				}
			}
		}
		if sends != (fn.ID == "StreamFunction") {
			t.Errorf("%s sends to the evaluation queue: %v (only StreamFunction may)", fn.ID, sends)
		}
		// The signals worker and the experiment runner ask their models through the user's
		// integration, as the judges do.
		askers := map[string]bool{"EvaluatorFunction": true, "IntegrationsFunction": true, "SignalsWorkerFunction": true, "ExperimentRunnerFunction": true}
		if readsIntegrations != askers[fn.ID] {
			t.Errorf("%s reads integration secrets: %v (only the integrations group, the evaluator, the signals worker and the experiment runner may)", fn.ID, readsIntegrations)
		}
	}
}

// staticFunctions serve what they carry (shared/docs): no table, no secret.
var staticFunctions = map[string]bool{"DocsFunction": true}

// checkGrants compares the DynamoDB and Secrets Manager grants of fn with want.
func checkGrants(t *testing.T, tpl *cfnTemplate, fn resource, want grants) {
	t.Helper()
	got := grants{}
	for _, st := range tpl.functionStatements(t, fn) {
		if str(dig(st, "Effect")) != "Allow" {
			continue
		}
		for _, a := range strs(dig(st, "Action")) {
			if !strings.HasPrefix(a, "dynamodb:") && !strings.HasPrefix(a, "secretsmanager:") {
				continue
			}
			for _, r := range list(dig(st, "Resource")) {
				got.add(a, describe(r))
			}
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("DynamoDB and Secrets Manager grants differ from least privilege:\n got:  %s\n want: %s", got, want)
	}
}

// ---------------------------------------------------------------- policy helpers

// grants maps an action to the resources it is allowed on (as described by describe).
type grants map[string]map[string]bool

func (g grants) add(action, resource string) {
	if g[action] == nil {
		g[action] = map[string]bool{}
	}
	g[action][resource] = true
}

func (g grants) String() string {
	var lines []string
	for a, rs := range g {
		var r []string
		for k := range rs {
			r = append(r, k)
		}
		sort.Strings(r)
		lines = append(lines, a+" on "+strings.Join(r, ", "))
	}
	sort.Strings(lines)
	return strings.Join(lines, "; ")
}

func checkStatement(t *testing.T, owner string, st any) {
	t.Helper()
	if str(dig(st, "Effect")) != "Allow" {
		return
	}
	if dig(st, "NotAction") != nil || dig(st, "NotResource") != nil {
		t.Errorf("%s: Allow with NotAction/NotResource", owner)
	}
	sensitive := false
	for _, a := range strs(dig(st, "Action")) {
		la := strings.ToLower(a)
		switch {
		case strings.Contains(la, "*"):
			t.Errorf("%s: wildcard action %q", owner, a)
		case la == "dynamodb:scan":
			t.Errorf("%s: dynamodb:Scan is granted; no function may scan the table", owner)
		}
		if strings.HasPrefix(la, "dynamodb:") || strings.HasPrefix(la, "secretsmanager:") {
			sensitive = true
		}
	}
	if sensitive {
		for _, r := range list(dig(st, "Resource")) {
			if s, ok := r.(string); ok && (s == "*" || strings.HasSuffix(s, ":*")) {
				t.Errorf("%s: DynamoDB/Secrets Manager action on resource %q", owner, s)
			}
		}
	}
}

// statementsOf returns the policy statements a resource defines itself.
func (tpl *cfnTemplate) statementsOf(t *testing.T, r resource) []any {
	switch r.Type {
	case "AWS::IAM::ManagedPolicy", "AWS::IAM::Policy":
		return list(dig(r.Props, "PolicyDocument", "Statement"))
	case "AWS::IAM::Role":
		var out []any
		for _, p := range list(r.Props["Policies"]) {
			out = append(out, list(dig(p, "PolicyDocument", "Statement"))...)
		}
		return out
	case "AWS::Serverless::Function":
		return tpl.functionStatements(t, r)
	}
	return nil
}

// functionStatements returns the statements of a function's Policies: inline documents and
// the template's own managed policies it references. SAM policy templates that grant Scan or
// table management, and AWS managed policies with broad access, are errors.
func (tpl *cfnTemplate) functionStatements(t *testing.T, fn resource) []any {
	t.Helper()
	var out []any
	for _, p := range list(fn.Props["Policies"]) {
		if id := ref(p); id != "" {
			mp, ok := tpl.Resources[id]
			if !ok || mp.Type != "AWS::IAM::ManagedPolicy" {
				t.Errorf("%s: policy !Ref %s is not a managed policy of the template", fn.ID, id)
				continue
			}
			out = append(out, list(dig(mp.Props, "PolicyDocument", "Statement"))...)
			continue
		}
		switch v := p.(type) {
		case string:
			if strings.Contains(v, "FullAccess") || strings.Contains(v, "PowerUser") || strings.Contains(v, "Administrator") {
				t.Errorf("%s: broad managed policy %s", fn.ID, v)
			}
		case map[string]any:
			if st, ok := v["Statement"]; ok {
				out = append(out, list(st)...)
				continue
			}
			for name := range v { // a SAM policy template
				if strings.HasPrefix(name, "DynamoDB") && name != "DynamoDBStreamReadPolicy" {
					t.Errorf("%s: SAM policy template %s grants Scan or table management; use the item-level policy", fn.ID, name)
				}
			}
		}
	}
	return out
}

func hasHTTPEvents(fn resource) bool {
	events, _ := fn.Props["Events"].(map[string]any)
	for _, ev := range events {
		if str(dig(ev, "Type")) == "HttpApi" {
			return true
		}
	}
	return false
}

// describe renders a resource expression: "Ref X", "GetAtt X.Arn", "Sub <string>", or the literal.
func describe(v any) string {
	if id := ref(v); id != "" {
		return "Ref " + id
	}
	if m, ok := v.(map[string]any); ok && len(m) == 1 {
		if ga, ok := m["Fn::GetAtt"]; ok {
			return "GetAtt " + strings.Join(strs(ga), ".")
		}
		if sub, ok := m["Fn::Sub"]; ok {
			if s, ok := sub.(string); ok {
				return "Sub " + s
			}
		}
	}
	return fmt.Sprint(v)
}

// ---------------------------------------------------------------- table helpers

func keySchema(t *testing.T, what string, v any) (hash, rng string) {
	t.Helper()
	for _, k := range list(v) {
		switch str(dig(k, "KeyType")) {
		case "HASH":
			hash = str(dig(k, "AttributeName"))
		case "RANGE":
			rng = str(dig(k, "AttributeName"))
		default:
			t.Errorf("%s: bad key schema element %v", what, k)
		}
	}
	return hash, rng
}

func sortIndexes(ix []store.IndexDef) {
	sort.Slice(ix, func(i, j int) bool { return ix[i].Name < ix[j].Name })
}

func uniqueSorted(s []string) []string {
	out := slices.Clone(s)
	sort.Strings(out)
	return slices.Compact(out)
}

// ---------------------------------------------------------------- Makefile

var makeFunctionRE = regexp.MustCompile(`([A-Za-z0-9]+)=([A-Za-z0-9_./-]+)`)

// makefileFunctions reads the Makefile's FUNCTIONS list (LogicalId=dir words, with line
// continuations) from which the build-<LogicalId> targets are generated.
func makefileFunctions(t *testing.T) map[string]string {
	t.Helper()
	b, err := os.ReadFile(makefilePath)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	in := false
	for line := range strings.SplitSeq(string(b), "\n") {
		if strings.HasPrefix(line, "FUNCTIONS :=") || strings.HasPrefix(line, "FUNCTIONS=") || strings.HasPrefix(line, "FUNCTIONS =") {
			in = true
		}
		if !in {
			continue
		}
		for _, m := range makeFunctionRE.FindAllStringSubmatch(line, -1) {
			out[m[1]] = m[2]
		}
		if !strings.HasSuffix(strings.TrimSpace(line), `\`) {
			break
		}
	}
	if len(out) == 0 {
		t.Fatal("Makefile: no FUNCTIONS := <LogicalId>=<dir> ... list")
	}
	return out
}

// ---------------------------------------------------------------- template loading

type resource struct {
	ID       string
	Type     string
	Props    map[string]any
	Metadata map[string]any
}

type cfnTemplate struct {
	Globals   map[string]any
	Resources map[string]resource
}

func loadTemplate(t *testing.T) *cfnTemplate {
	t.Helper()
	b, err := os.ReadFile(templatePath)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := parseCFN(b)
	if err != nil {
		t.Fatalf("template.yaml: %v", err)
	}
	root, _ := doc.(map[string]any)
	tpl := &cfnTemplate{Resources: map[string]resource{}}
	tpl.Globals, _ = root["Globals"].(map[string]any)
	res, _ := root["Resources"].(map[string]any)
	for id, v := range res {
		r := resource{ID: id, Type: str(dig(v, "Type"))}
		r.Props, _ = dig(v, "Properties").(map[string]any)
		r.Metadata, _ = dig(v, "Metadata").(map[string]any)
		if r.Props == nil {
			r.Props = map[string]any{}
		}
		tpl.Resources[id] = r
	}
	return tpl
}

func (tpl *cfnTemplate) ofType(typ string) []resource {
	var out []resource
	for _, r := range tpl.Resources {
		if r.Type == typ {
			out = append(out, r)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// functions returns the functions with Globals.Function merged in as SAM merges them.
func (tpl *cfnTemplate) functions() []resource {
	globals, _ := dig(tpl.Globals, "Function").(map[string]any)
	var out []resource
	for _, r := range tpl.ofType("AWS::Serverless::Function") {
		merged, _ := mergeGlobals(globals, r.Props, "").(map[string]any)
		r.Props = merged
		out = append(out, r)
	}
	return out
}

// mergeGlobals follows SAM's globals plugin: maps merge key by key, lists concatenate
// (Architectures is replaced), anything else - scalars, intrinsic functions, or values of
// different kinds - takes the local value.
func mergeGlobals(global, local any, path string) any {
	gm, gok := global.(map[string]any)
	lm, lok := local.(map[string]any)
	if gok && lok && !isIntrinsic(gm) && !isIntrinsic(lm) {
		out := make(map[string]any, len(gm)+len(lm))
		for k, v := range gm {
			out[k] = v
		}
		for k, v := range lm {
			if g, ok := gm[k]; ok {
				out[k] = mergeGlobals(g, v, strings.TrimPrefix(path+"."+k, "."))
			} else {
				out[k] = v
			}
		}
		return out
	}
	gl, gok := global.([]any)
	ll, lok := local.([]any)
	if gok && lok && path != "Architectures" {
		return append(slices.Clone(gl), ll...)
	}
	if local == nil {
		return global
	}
	return local
}

func isIntrinsic(m map[string]any) bool {
	if len(m) != 1 {
		return false
	}
	for k := range m {
		return k == "Ref" || k == "Condition" || strings.HasPrefix(k, "Fn::")
	}
	return false
}

// parseCFN parses a CloudFormation YAML document into maps, slices and scalars, turning the
// short-form tags into their long form: !Ref X → {"Ref": X}, !GetAtt A.B → {"Fn::GetAtt": [A, B]},
// !Sub/!If/!Equals/... → {"Fn::Sub": ...}.
func parseCFN(b []byte) (any, error) {
	var n yaml.Node
	if err := yaml.Unmarshal(b, &n); err != nil {
		return nil, err
	}
	return fromNode(&n)
}

func fromNode(n *yaml.Node) (any, error) {
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil, nil
		}
		return fromNode(n.Content[0])
	case yaml.AliasNode:
		return fromNode(n.Alias)
	}
	custom := strings.HasPrefix(n.Tag, "!") && !strings.HasPrefix(n.Tag, "!!")
	var v any
	switch n.Kind {
	case yaml.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind != yaml.ScalarNode {
				return nil, fmt.Errorf("line %d: non-scalar mapping key", k.Line)
			}
			if _, dup := m[k.Value]; dup {
				return nil, fmt.Errorf("line %d: duplicate key %q", k.Line, k.Value)
			}
			val, err := fromNode(n.Content[i+1])
			if err != nil {
				return nil, err
			}
			m[k.Value] = val
		}
		v = m
	case yaml.SequenceNode:
		l := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			val, err := fromNode(c)
			if err != nil {
				return nil, err
			}
			l = append(l, val)
		}
		v = l
	case yaml.ScalarNode:
		if custom {
			v = n.Value
		} else if err := n.Decode(&v); err != nil {
			return nil, fmt.Errorf("line %d: %w", n.Line, err)
		}
	}
	if !custom {
		return v, nil
	}
	switch name := n.Tag[1:]; name {
	case "Ref", "Condition":
		return map[string]any{name: v}, nil
	case "GetAtt":
		if s, ok := v.(string); ok {
			res, attr, _ := strings.Cut(s, ".")
			return map[string]any{"Fn::GetAtt": []any{res, attr}}, nil
		}
		return map[string]any{"Fn::GetAtt": v}, nil
	default:
		return map[string]any{"Fn::" + name: v}, nil
	}
}

// ---------------------------------------------------------------- generic access

func dig(v any, keys ...string) any {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

// list returns v as a list; a single value is a list of one (as in IAM's Action/Resource).
func list(v any) []any {
	switch l := v.(type) {
	case nil:
		return nil
	case []any:
		return l
	default:
		return []any{l}
	}
}

func strs(v any) []string {
	var out []string
	for _, x := range list(v) {
		out = append(out, fmt.Sprint(x))
	}
	return out
}

// ref returns X for {"Ref": X}, else "".
func ref(v any) string {
	m, ok := v.(map[string]any)
	if !ok || len(m) != 1 {
		return ""
	}
	return str(m["Ref"])
}

func ids(rs []resource) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.ID)
	}
	return out
}
