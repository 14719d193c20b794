package apprun

import (
	"testing"

	"github.com/google/go-github/v60/github"
	"github.com/stretchr/testify/assert"
)

// A "dixit:<protocol>" label on the issue overrides the protocol dixit.yml names.
func TestAProtocolLabelPicksTheProtocol(t *testing.T) {
	labels := func(names ...string) []*github.Label {
		var out []*github.Label
		for _, n := range names {
			out = append(out, &github.Label{Name: github.String(n)})
		}
		return out
	}
	e := &Executor{}
	assert.Equal(t, "", e.labelProtocol(labels("dixit", "bug")))
	assert.Equal(t, "critics", e.labelProtocol(labels("bug", "dixit", "dixit:critics")))
	assert.Equal(t, "", e.labelProtocol(labels("dixit:vote")))
	custom := &Executor{Label: "vet"}
	assert.Equal(t, "tdg", custom.labelProtocol(labels("vet:tdg")))
	assert.Equal(t, "", custom.labelProtocol(labels("dixit:tdg")))
}
