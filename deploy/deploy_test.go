// Package deploy holds deployment files; its test keeps them consistent with the code.
package deploy

import (
	"bytes"
	"errors"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
)

func TestAppManifestAsksForNoMoreThanItNeeds(t *testing.T) {
	data, err := os.ReadFile("app.yml")
	require.NoError(t, err)
	var m struct {
		Permissions map[string]string `yaml:"default_permissions"`
		Events      []string          `yaml:"default_events"`
	}
	require.NoError(t, yaml.Unmarshal(data, &m))
	assert.NotContains(t, m.Permissions, "workflows", "the App can never change a workflow")
	assert.Equal(t, "read", m.Permissions["metadata"])
	assert.ElementsMatch(t, []string{"issues", "issue_comment", "pull_request", "workflow_run"}, m.Events)
	for _, line := range strings.Split(string(data), "\n") {
		trimmed := strings.TrimSpace(line)
		for name := range m.Permissions {
			if strings.HasPrefix(trimmed, name+":") {
				assert.Contains(t, line, "#", "permission %s says why it is needed", name)
			}
		}
	}
}

func TestKubernetesManifests(t *testing.T) {
	data, err := os.ReadFile("kubernetes/dixit.yaml")
	require.NoError(t, err)
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var kinds []string
	for {
		var doc struct {
			Kind string `yaml:"kind"`
		}
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		kinds = append(kinds, doc.Kind)
	}
	assert.Equal(t, []string{"Secret", "PersistentVolumeClaim", "Deployment", "Service"}, kinds)
	assert.Contains(t, string(data), "type: Recreate", "never two servers on one state volume")
}

func TestDockerfileRunsUnprivilegedWithTheJudgesTools(t *testing.T) {
	data, err := os.ReadFile("Dockerfile")
	require.NoError(t, err)
	df := string(data)
	assert.Contains(t, df, "bubblewrap")
	assert.Contains(t, df, "USER dixit")
	assert.Contains(t, df, "./cmd/bot")
	_, err = os.Stat("../cmd/bot/main.go")
	assert.NoError(t, err, "the Dockerfile builds a package that exists")
}
