// Package docs carries the API's OpenAPI document into the one function that serves it
// (shared/docs, functions/docs): the YAML beside this file is the contract, read as is.
package docs

import _ "embed"

// OpenAPIYAML is docs/openapi.yaml.
//
//go:embed openapi.yaml
var OpenAPIYAML []byte
