// Command purge is the stream worker of the table (PurgeFunction in template.yaml): it
// removes the rows and collaborators of deleted datasets as DynamoDB Streams reports the
// deletions (shared/purge). Its dependencies are built like every function's (shared/app).
package main

import (
	"context"
	"log/slog"
	"os"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/evalobs/evalapi/shared/app"
	"github.com/evalobs/evalapi/shared/purge"
)

func main() {
	cfg, err := app.ReadConfig(app.Cloud, os.Getenv)
	if err != nil {
		app.LambdaLogger(slog.LevelInfo).Error("init failed", "error", err.Error())
		os.Exit(1)
	}
	log := app.LambdaLogger(cfg.LogLevel)
	d, err := app.NewCloud(context.Background(), cfg, log)
	if err != nil {
		log.Error("init failed", "error", err.Error())
		os.Exit(1)
	}
	lambda.Start(purge.New(d.Table, d.Log).HandleDynamoDBEvent)
}
