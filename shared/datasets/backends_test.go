package datasets_test

import (
	"testing"

	"github.com/evalobs/evalapi/infra/testenv"
	"github.com/evalobs/evalapi/shared/store"
)

// TestOnDynamoDB runs the main flows of the group on DynamoDB Local and moto: the handler
// tests above run on the embedded store, whose semantics the store's conformance suite ties
// to DynamoDB's; this checks the group's own reads (consistent reads, the groups index) there.
func TestOnDynamoDB(t *testing.T) {
	for _, b := range []struct {
		name     string
		endpoint func(testing.TB) string
	}{{"DynamoDBLocal", testenv.DynamoLocal}, {"moto", testenv.Moto}} {
		t.Run(b.name, func(t *testing.T) {
			tbl := openDynamo(t, b.endpoint(t))
			flows := []struct {
				name string
				run  func(*testing.T, *harness)
			}{
				{"pages", runContentPages},
				{"versions", runContentVersions},
				{"bulk delete mix", runBulkDeleteMix},
			}
			for _, f := range flows {
				t.Run(f.name, func(t *testing.T) { f.run(t, newHarness(t, harnessOptions{table: tbl})) })
			}
		})
	}
}

func openDynamo(t *testing.T, endpoint string) store.Table { return testenv.OpenDynamo(t, endpoint) }
