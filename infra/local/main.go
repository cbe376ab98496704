// Command local serves the whole API from one process on 127.0.0.1 (`make run`): every
// operation group on one router, on the embedded store and encrypted secrets file under
// DATA_DIR, or on DynamoDB Local / moto when DYNAMODB_ENDPOINT / SECRETSMANAGER_ENDPOINT
// are set. The first start creates an organization with an admin user and an API key and
// prints them once.
//
// Environment: PORT (default 3000; 0 picks a free port), DATA_DIR (default .data),
// ADMIN_EMAIL and ADMIN_PASSWORD (first start only), CPUPROFILE (a file: the host writes a
// CPU profile of its run there when it stops; for `go tool pprof`), and the service's
// variables (README.md). SIGINT or SIGTERM stops it after the requests under way are answered.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime/pprof"
	"strconv"
	"syscall"
	"time"

	"github.com/evalobs/evalapi/infra/demo"
	"github.com/evalobs/evalapi/shared/app"
	"github.com/evalobs/evalapi/shared/app/groups"
	"github.com/evalobs/evalapi/shared/app/local"

	// The hosts serve every group, the signals' schedules included: the same IANA zones as
	// functions/signals, whatever the machine has installed.
	_ "time/tzdata"

	"github.com/evalobs/evalapi/shared/app/signalsworker"
	"github.com/evalobs/evalapi/shared/schedule/inproc"
)

// DefaultPort is the port of `sam local start-api`.
const DefaultPort = "3000"

// The timeouts follow API Gateway's: its integration timeout is 30 s, and the local host
// should not accept what the cloud would cut off.
const (
	requestTimeout  = 30 * time.Second
	shutdownTimeout = 10 * time.Second
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		stop() // a second Ctrl-C kills at once, should shutdown hang
	}()
	stopProfile, err := startCPUProfile(os.Getenv("CPUPROFILE"))
	if err == nil {
		err = run(ctx, os.Getenv, os.Stdout, os.Stderr)
		err = errors.Join(err, stopProfile())
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "local:", err)
		os.Exit(1)
	}
}

// startCPUProfile profiles the process into file until the returned func is called (a
// developer's aid: `make bench-http PROFILE=cpu.out` reads where the host's time goes under
// load). No file, no profile.
func startCPUProfile(file string) (stop func() error, err error) {
	if file == "" {
		return func() error { return nil }, nil
	}
	f, err := os.Create(file)
	if err != nil {
		return nil, fmt.Errorf("CPUPROFILE: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("CPUPROFILE: %w", err)
	}
	return func() error {
		pprof.StopCPUProfile()
		return f.Close()
	}, nil
}

// run serves until ctx ends. The terminal (stdout) gets the address and, on first start,
// the admin credentials; the JSON log goes to stderr.
func run(ctx context.Context, getenv func(string) string, stdout, stderr io.Writer) error {
	cfg, err := app.ReadConfig(app.Local, getenv)
	if err != nil {
		return err
	}
	port := or(getenv("PORT"), DefaultPort)
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return fmt.Errorf("PORT=%q is not a port number", port)
	}
	dataDir := or(getenv("DATA_DIR"), local.DefaultDataDir)
	log := app.JSONLogger(stderr, cfg.LogLevel)

	var st streams
	d, closeDeps, err := local.Open(ctx, cfg, log, local.Options{DataDir: dataDir, OnCommit: st.deliver})
	if err != nil {
		return err
	}
	defer func() {
		if err := closeDeps(); err != nil {
			log.Error("close", "error", err.Error())
		}
	}()
	// Signals: runs in goroutines, fired by the in-process scheduler (the cloud's EventBridge
	// Scheduler schedules and worker function).
	sig := signalsworker.NewLocal(&d, signalsworker.Model(d), inproc.Options{})
	sigCtx, stopSignals := context.WithCancel(ctx)
	sigDone := make(chan struct{})
	go func() {
		defer close(sigDone)
		_ = sig.Run(sigCtx)
	}()
	defer func() { // before closeDeps: runs write to the store
		stopSignals()
		<-sigDone
		sig.Wait()
	}()
	// Experiment chunks run in-process: the runner the cloud's ExperimentRunnerFunction runs,
	// behind a queue with the same cap, redelivery and dead letters as its SQS source.
	runs := local.NewQueue(exprunWorker(d).HandleChunk, 5, log)
	defer runs.Close()
	d.ExperimentQueue = runs
	workers, stopWorkers := streamWorkers(d)
	defer stopWorkers() // before closeDeps: the workers write to the store
	for _, w := range workers {
		st.subscribe(w)
	}
	if err := local.Bootstrap(ctx, d, getenv, stdout); err != nil {
		return err
	}
	// 127.0.0.1 only: the local host has a well-known admin and no TLS. The port is bound
	// before the demo loads so that the demo's commands name the real one (PORT=0 included);
	// connections wait in the backlog until it is served.
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", port))
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	defer ln.Close()
	if demoOn, _ := strconv.ParseBool(getenv("DEMO")); demoOn {
		// DEMO=1 loads a demo project with a day of traces before serving (as make seed does).
		opts := demo.SeedOptions{Traces: demo.DefaultTraces, Seed: 1, BaseURL: "http://" + ln.Addr().String()}
		if err := demo.Seed(ctx, d, getenv, opts, stdout); err != nil {
			return err
		}
	}

	var all []app.Register
	for _, g := range groups.All() {
		all = append(all, g.Register)
	}
	srv := &http.Server{
		Handler:           app.NewRouter(d, all...),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       requestTimeout,
		WriteTimeout:      requestTimeout,
		IdleTimeout:       2 * time.Minute,
	}
	fmt.Fprintf(stdout, "evalapi listening on http://%s (%s); Ctrl-C stops it\n", ln.Addr(), storage(cfg, dataDir))
	log.Info("listening", "addr", ln.Addr().String(), "groups", groups.Names())

	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	log.Info("shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve: %w", err)
	}
	d.Auth.Wait() // writes that auth makes after answering (API-key last use)
	return nil
}

// storage says where the data lives, for the start line.
func storage(cfg app.Config, dataDir string) string {
	where := "store " + dataDir + "/" + local.StoreFile
	if cfg.DynamoDBEndpoint != "" {
		where = "table " + cfg.TableName + " at " + cfg.DynamoDBEndpoint
	}
	if cfg.SecretsManagerEndpoint != "" {
		return where + ", secrets at " + cfg.SecretsManagerEndpoint
	}
	return where + ", secrets in " + dataDir + "/" + local.SecretsDir
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
