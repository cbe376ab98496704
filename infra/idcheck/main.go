// Command idcheck checks, after the whole test suite ran with ID_RECORD_DIR set, that every
// id the service answered was a UUID4: each test binary recorded there the id-named fields
// of its checked success responses that held anything else (shared/apitest/ids.go names the
// fields and the exclusions). It prints each violation and exits 1 on any, and also when
// nothing was recorded (the suite did not run with the variable set).
//
//	go run ./infra/idcheck -dir "$ID_RECORD_DIR"
package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/evalobs/evalapi/shared/apitest"
)

func main() {
	dir := flag.String("dir", os.Getenv(apitest.IDRecordEnv), "directory the test binaries recorded id violations in")
	flag.Parse()
	if err := run(os.Stdout, *dir); err != nil {
		fmt.Fprintln(os.Stderr, "idcheck:", err)
		os.Exit(1)
	}
}

func run(w io.Writer, dir string) error {
	if dir == "" {
		return fmt.Errorf("no record directory: pass -dir or set %s", apitest.IDRecordEnv)
	}
	violations, binaries, err := apitest.IDRecorded(dir)
	if err != nil {
		return err
	}
	if binaries == 0 {
		return fmt.Errorf("nothing recorded under %s: did the suite run with %s set?", dir, apitest.IDRecordEnv)
	}
	for _, v := range violations {
		fmt.Fprintln(w, v)
	}
	if len(violations) > 0 {
		return fmt.Errorf("%d id fields of recorded responses are not UUID4 (method, path, status, field = value above)", len(violations))
	}
	fmt.Fprintf(w, "idcheck: every id in the success responses of %d test binaries is a UUID4\n", binaries)
	return nil
}
