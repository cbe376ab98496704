// Command contractcover checks, after the whole test suite ran with
// CLIENT_CONTRACT_RECORD_DIR set (infra/scripts/test.sh does), that every operation we
// serve which the original's clients parse had a success response held to the client
// contract (shared/apitest/testdata/client-contract.json) by some test, and that every
// served operation has an entry in that contract. It prints each gap and exits 1 on any.
//
//	go run ./infra/contractcover -dir "$CLIENT_CONTRACT_RECORD_DIR"
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/evalobs/evalapi/shared/apitest"
)

func main() {
	dir := flag.String("dir", os.Getenv(apitest.RecordEnv), "directory the test binaries recorded their checked operations in")
	flag.Parse()
	if err := run(*dir); err != nil {
		fmt.Fprintln(os.Stderr, "contractcover:", err)
		os.Exit(1)
	}
}

func run(dir string) error {
	if dir == "" {
		return fmt.Errorf("no record directory: pass -dir or set %s", apitest.RecordEnv)
	}
	root, err := apitest.ModuleRoot()
	if err != nil {
		return err
	}
	v, err := apitest.Load(filepath.Join(root, apitest.DocPath))
	if err != nil {
		return err
	}
	c, err := apitest.ClientContract()
	if err != nil {
		return err
	}
	recorded, err := apitest.Recorded(dir)
	if err != nil {
		return err
	}
	if len(recorded) == 0 {
		return fmt.Errorf("nothing recorded under %s: did the suite run with %s set?", dir, apitest.RecordEnv)
	}
	served := v.Operations()
	gaps := c.ContractCoverage(served, recorded)
	for _, g := range gaps {
		fmt.Println(g)
	}
	if len(gaps) > 0 {
		return fmt.Errorf("%d of %d served operations are not held to the client contract by the suite", len(gaps), len(served))
	}
	fmt.Printf("contractcover: every one of %d served operations has its client contract entry; each the client parses was checked on a recorded response (%d recorded)\n", len(served), len(recorded))
	return nil
}
