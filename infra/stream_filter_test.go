package infra_test

// The stream consumer's event filter (template.yaml) lets through exactly the records its
// handlers act on: a record the filter drops is never handled in the cloud, though the
// local host (which has no filter) would handle it.

import (
	"encoding/json"
	"testing"

	"github.com/evalobs/evalapi/shared/app/apptest"
	"github.com/evalobs/evalapi/shared/app/workers"
	"github.com/evalobs/evalapi/shared/queue"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/stream"
)

func TestStreamFilterMatchesHandlers(t *testing.T) {
	tpl := loadTemplate(t)
	var patterns []map[string]any
	for _, fn := range tpl.functions() {
		events, _ := fn.Props["Events"].(map[string]any)
		for _, ev := range events {
			if str(dig(ev, "Type")) != "DynamoDB" {
				continue
			}
			for _, f := range list(dig(ev, "Properties", "FilterCriteria", "Filters")) {
				var p map[string]any
				if err := json.Unmarshal([]byte(str(dig(f, "Pattern"))), &p); err != nil {
					t.Fatalf("%s: filter pattern: %v", fn.ID, err)
				}
				patterns = append(patterns, p)
			}
		}
	}
	if len(patterns) == 0 {
		t.Fatal("no DynamoDB stream filter in template.yaml")
	}
	d := apptest.Deps(t)
	consumer := workers.Stream(d, queue.NewLocal(queue.Options{}), workers.EvalConfig{})
	item := func(pk, sk, entity string) store.Item {
		return store.Item{store.AttrPK: pk, store.AttrSK: sk, store.AttrEntity: entity}
	}
	const id = "0f0e0d0c-0b0a-4009-8807-060504030201"
	for _, tc := range []struct {
		name     string
		event    string
		old, new store.Item
	}{
		{"dataset deleted", "REMOVE", item("DATASET#"+id, "META", store.EntityDataset), nil},
		{"dataset row removed", "REMOVE", item("DATASET#"+id, "ROW#0000000001", store.EntityDatasetRow), nil},
		{"dataset changed", "MODIFY", item("DATASET#"+id, "META", store.EntityDataset), item("DATASET#"+id, "META", store.EntityDataset)},
		{"project deleted", "REMOVE", item("PROJECT#"+id, "META", store.EntityProject), nil},
		{"log stream deleted", "REMOVE", item("PROJECT#"+id, "LOGSTREAM#"+id, store.EntityLogStream), nil},
		{"experiment deleted", "REMOVE", item("PROJECT#"+id, "EXPERIMENT#"+id, store.EntityExperiment), nil},
		{"log stream changed", "MODIFY", item("PROJECT#"+id, "LOGSTREAM#"+id, store.EntityLogStream), item("PROJECT#"+id, "LOGSTREAM#"+id, store.EntityLogStream)},
		{"prompt template deleted", "REMOVE", item("PROJECT#"+id, "TEMPLATE#"+id, store.EntityPromptTemplate), nil},
		{"organization's prompt template deleted", "REMOVE", item("ORGPTEMPLATES#"+id, "TEMPLATE#"+id, store.EntityPromptTemplate), nil},
		{"prompt template renamed", "MODIFY", item("ORGPTEMPLATES#"+id, "TEMPLATE#"+id, store.EntityPromptTemplate), item("ORGPTEMPLATES#"+id, "TEMPLATE#"+id, store.EntityPromptTemplate)},
		{"prompt template home removed", "REMOVE", item("PTEMPLATE#"+id, "HOME", store.EntityPromptTemplateHome), nil},
		{"prompt template version removed", "REMOVE", item("PTEMPLATE#"+id, "VERSION#000000", store.EntityPromptTemplateVersion), nil},
		{"prompt template collaborator removed", "REMOVE", item("PTEMPLATE#"+id, "USER#"+id, store.EntityTemplateCollaborator), nil},
		{"user deleted", "REMOVE", item("USER#"+id, "META", "user"), nil},
		{"trace created", "INSERT", nil, trace(false, "")},
		{"trace marked complete", "MODIFY", trace(false, ""), trace(true, "")},
		{"trace written again", "MODIFY", trace(false, ""), trace(false, "2026-11-24T10:00:00Z")},
		{"trace deleted", "REMOVE", trace(true, ""), nil},
		{"span created", "INSERT", nil, item("TRACE#t", "SPAN#s", store.EntitySpan)},
		{"span changed", "MODIFY", item("TRACE#t", "SPAN#s", store.EntitySpan), item("TRACE#t", "SPAN#s", store.EntitySpan)},
		{"placeholder span created", "INSERT", nil, pending(item("TRACE#t", "SPAN#s", store.EntitySpan))},
		{"placeholder span judged again", "MODIFY", pending(item("TRACE#t", "SPAN#s", store.EntitySpan)), pending(item("TRACE#t", "SPAN#s", store.EntitySpan))},
		{"placeholder replaced by its span", "MODIFY", pending(item("TRACE#t", "SPAN#s", store.EntitySpan)), item("TRACE#t", "SPAN#s", store.EntitySpan)},
		{"extremes repair marked", "INSERT", nil, item("RUN#r", "REPAIR#"+id, store.EntityExtremesRepair)},
		{"extremes repair done", "REMOVE", item("RUN#r", "REPAIR#"+id, store.EntityExtremesRepair), nil},
		{"roll-up changed", "MODIFY", item("RUN#r#ROLLUP#_all", "2026-11-24T10:00Z#", store.EntityRollup), item("RUN#r#ROLLUP#_all", "2026-11-24T10:00Z#", store.EntityRollup)},
	} {
		rec := stream.Record{ID: "1", Old: tc.old, New: tc.new}
		handled := consumer.Accepts(rec)
		passes := false
		for _, p := range patterns {
			passes = passes || filterMatches(p, map[string]any{"eventName": tc.event, "dynamodb": map[string]any{"OldImage": typed(tc.old), "NewImage": typed(tc.new)}})
		}
		if handled != passes {
			t.Errorf("%s: a handler takes it: %v; the filter lets it through: %v", tc.name, handled, passes)
		}
	}
}

// trace is a trace's item with the header fields the dispatcher reads.
func trace(complete bool, updatedAt string) store.Item {
	doc := map[string]any{"id": "t", "is_complete": complete}
	if updatedAt != "" {
		doc["updated_at"] = updatedAt
	}
	b, _ := json.Marshal(doc)
	return store.Item{store.AttrPK: "RUN#r", store.AttrSK: "TRACE#t", store.AttrEntity: store.EntityTrace, "doc": string(b)}
}

// pending marks an item as a placeholder span's (store.AttrPending).
func pending(it store.Item) store.Item {
	it[store.AttrPending] = true
	return it
}

// typed writes an item's string and boolean attributes as a stream image does ({"S": value},
// {"BOOL": value}).
func typed(it store.Item) map[string]any {
	if it == nil {
		return nil
	}
	out := map[string]any{}
	for k, v := range it {
		switch v := v.(type) {
		case string:
			out[k] = map[string]any{"S": v}
		case bool:
			out[k] = map[string]any{"BOOL": v}
		}
	}
	return out
}

// filterMatches applies the subset of the event filter syntax the template uses: nested
// objects whose leaves are lists of accepted values, or [{"exists": false}] for an
// attribute that must be absent.
func filterMatches(pattern, event map[string]any) bool {
	for k, want := range pattern {
		got, ok := event[k]
		if w, isList := want.([]any); isList && len(w) == 1 {
			if m, isMap := w[0].(map[string]any); isMap {
				if exists, isBool := m["exists"].(bool); isBool && len(m) == 1 {
					if ok == exists {
						continue
					}
					return false
				}
			}
		}
		if !ok {
			return false
		}
		switch w := want.(type) {
		case map[string]any:
			g, ok := got.(map[string]any)
			if !ok || !filterMatches(w, g) {
				return false
			}
		case []any:
			found := false
			for _, v := range w {
				found = found || v == got
			}
			if !found {
				return false
			}
		default:
			return false
		}
	}
	return true
}
