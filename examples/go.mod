// This module exists only so that `go vet ./...` and `go test ./...` in the root module skip
// these example trees: the tester files are test fragments that compile only once placed into a coder's tree.
module github.com/dixit-bot/dixit/examples

go 1.22
