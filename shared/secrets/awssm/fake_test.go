package awssm

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager/types"
	"github.com/aws/smithy-go"
)

// fakeSM is an in-memory Secrets Manager with the error behaviour the store relies on.
type fakeSM struct {
	mu      sync.Mutex
	secrets map[string]*fakeSecret // by name
	calls   []string

	// Faults to inject, each counted down per call.
	pendingDeletion int   // CreateSecret and PutSecretValue answer InvalidRequestException
	phantom         int   // CreateSecret answers ResourceExistsException for a missing secret
	fail            error // every call fails with it, when set
	createInputs    []*secretsmanager.CreateSecretInput
}

type fakeSecret struct {
	arn  string
	str  *string
	bin  []byte
	tags []types.Tag
}

func newFake() *fakeSM { return &fakeSM{secrets: make(map[string]*fakeSecret)} }

func opErr(op string, err error) error {
	return &smithy.OperationError{ServiceID: "Secrets Manager", OperationName: op, Err: err}
}

func notFound(op string) error {
	return opErr(op, &types.ResourceNotFoundException{Message: aws.String("Secrets Manager can't find the specified secret.")})
}

func invalidRequest(op string) error {
	return opErr(op, &types.InvalidRequestException{Message: aws.String("You can't perform this operation on the secret because it was marked for deletion.")})
}

// lookup finds a secret by name or ARN; f.mu is held.
func (f *fakeSM) lookup(id string) (string, *fakeSecret) {
	if s, ok := f.secrets[id]; ok {
		return id, s
	}
	for name, s := range f.secrets {
		if s.arn == id {
			return name, s
		}
	}
	return "", nil
}

func (f *fakeSM) begin(op string) error {
	f.calls = append(f.calls, op)
	return f.fail
}

func (f *fakeSM) CreateSecret(_ context.Context, in *secretsmanager.CreateSecretInput, _ ...func(*secretsmanager.Options)) (*secretsmanager.CreateSecretOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.begin("CreateSecret"); err != nil {
		return nil, err
	}
	f.createInputs = append(f.createInputs, in)
	name := aws.ToString(in.Name)
	switch {
	case f.pendingDeletion > 0:
		f.pendingDeletion--
		return nil, invalidRequest("CreateSecret")
	case f.phantom > 0:
		f.phantom--
		return nil, opErr("CreateSecret", &types.ResourceExistsException{Message: aws.String("the secret " + name + " already exists.")})
	case f.secrets[name] != nil:
		return nil, opErr("CreateSecret", &types.ResourceExistsException{Message: aws.String("the secret " + name + " already exists.")})
	}
	s := &fakeSecret{
		arn:  "arn:aws:secretsmanager:us-east-1:123456789012:secret:" + name + "-" + rand.Text()[:6],
		str:  in.SecretString,
		bin:  bytes.Clone(in.SecretBinary),
		tags: in.Tags,
	}
	f.secrets[name] = s
	return &secretsmanager.CreateSecretOutput{ARN: aws.String(s.arn), Name: aws.String(name)}, nil
}

func (f *fakeSM) PutSecretValue(_ context.Context, in *secretsmanager.PutSecretValueInput, _ ...func(*secretsmanager.Options)) (*secretsmanager.PutSecretValueOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.begin("PutSecretValue"); err != nil {
		return nil, err
	}
	if f.pendingDeletion > 0 {
		f.pendingDeletion--
		return nil, invalidRequest("PutSecretValue")
	}
	_, s := f.lookup(aws.ToString(in.SecretId))
	if s == nil {
		return nil, notFound("PutSecretValue")
	}
	s.str, s.bin = in.SecretString, bytes.Clone(in.SecretBinary)
	return &secretsmanager.PutSecretValueOutput{ARN: aws.String(s.arn)}, nil
}

func (f *fakeSM) GetSecretValue(_ context.Context, in *secretsmanager.GetSecretValueInput, _ ...func(*secretsmanager.Options)) (*secretsmanager.GetSecretValueOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.begin("GetSecretValue"); err != nil {
		return nil, err
	}
	_, s := f.lookup(aws.ToString(in.SecretId))
	if s == nil {
		return nil, notFound("GetSecretValue")
	}
	return &secretsmanager.GetSecretValueOutput{ARN: aws.String(s.arn), SecretString: s.str, SecretBinary: bytes.Clone(s.bin)}, nil
}

func (f *fakeSM) DeleteSecret(_ context.Context, in *secretsmanager.DeleteSecretInput, _ ...func(*secretsmanager.Options)) (*secretsmanager.DeleteSecretOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.begin("DeleteSecret"); err != nil {
		return nil, err
	}
	if !aws.ToBool(in.ForceDeleteWithoutRecovery) {
		return nil, errors.New("fake: DeleteSecret without ForceDeleteWithoutRecovery")
	}
	name, s := f.lookup(aws.ToString(in.SecretId))
	if s == nil {
		// Real Secrets Manager answers success when forced; some emulators do not.
		return nil, notFound("DeleteSecret")
	}
	delete(f.secrets, name)
	return &secretsmanager.DeleteSecretOutput{ARN: aws.String(s.arn)}, nil
}

// Call is the fake's wire: the store's input travels as JSON into the SDK's shapes of the
// operation, as it would to Secrets Manager, and the answer back as JSON into the store's.
func (f *fakeSM) Call(ctx context.Context, op string, in, out any) error {
	b, err := json.Marshal(in)
	if err != nil {
		return err
	}
	var res any
	switch op {
	case "CreateSecret":
		var i secretsmanager.CreateSecretInput
		if err := json.Unmarshal(b, &i); err != nil {
			return err
		}
		res, err = f.CreateSecret(ctx, &i)
	case "PutSecretValue":
		var i secretsmanager.PutSecretValueInput
		if err := json.Unmarshal(b, &i); err != nil {
			return err
		}
		res, err = f.PutSecretValue(ctx, &i)
	case "GetSecretValue":
		var i secretsmanager.GetSecretValueInput
		if err := json.Unmarshal(b, &i); err != nil {
			return err
		}
		res, err = f.GetSecretValue(ctx, &i)
	case "DeleteSecret":
		var i secretsmanager.DeleteSecretInput
		if err := json.Unmarshal(b, &i); err != nil {
			return err
		}
		res, err = f.DeleteSecret(ctx, &i)
	default:
		return fmt.Errorf("fake: unexpected operation %s", op)
	}
	if err != nil || out == nil {
		return err
	}
	rb, err := json.Marshal(res)
	if err != nil {
		return err
	}
	return json.Unmarshal(rb, out)
}

func (f *fakeSM) callLog() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return strings.Join(f.calls, ",")
}
