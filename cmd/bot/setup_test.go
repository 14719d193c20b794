package main

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestSetupSaysWhichFlagToChange(t *testing.T) {
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"setup"}, exitUsage, "--public-url is required"},
		{[]string{"setup", "--public-url", "dixit.example.com"}, exitUsage, `--public-url "dixit.example.com": must be an address such as https://`},
		{[]string{"setup", "--public-url", "https://d.example.com", "--org", "a b"}, exitUsage, `--org "a b"`},
		{[]string{"setup", "--public-url", "https://d.example.com", "--listen", "256.0.0.1:1"}, exitError, "setup: listen on --listen 256.0.0.1:1"},
	}
	for _, c := range cases {
		var out, errOut bytes.Buffer
		code := exitCode(run(context.Background(), c.args, &out, &errOut), &errOut)
		assert.Equal(t, c.code, code, "%v", c.args)
		assert.Contains(t, errOut.String(), c.want)
	}
}
