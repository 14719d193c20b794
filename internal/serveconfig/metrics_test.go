package serveconfig

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMetricsListenOnLoopbackUnlessToldOtherwise: /metrics is kept off the webhook's
// port, on loopback by default; the file or DIXIT_METRICS_LISTEN moves it or turns it off,
// and an address net.Listen would not take is named with the key that set it.
func TestMetricsListenOnLoopbackUnlessToldOtherwise(t *testing.T) {
	required := map[string]string{"DIXIT_GITHUB_APP_ID": "42", "DIXIT_GITHUB_PRIVATE_KEY_FILE": keyFile(t), "DIXIT_WEBHOOK_SECRET": "0123456789abcdef"}
	for _, tc := range []struct {
		name, yaml, env string
		want, err       string
	}{
		{name: "default", want: "127.0.0.1:9090"},
		{name: "from the file", yaml: "metrics_listen: \"10.0.0.5:9100\"\n", want: "10.0.0.5:9100"},
		{name: "the variable wins", yaml: "metrics_listen: \"10.0.0.5:9100\"\n", env: ":9100", want: ":9100"},
		{name: "empty turns it off", yaml: "metrics_listen: \"\"\n", want: ""},
		{name: "off turns it off", yaml: "metrics_listen: off\n", want: "off"},
		{name: "so does the variable", env: "off", want: "off"},
		{name: "a port alone in the file", yaml: "metrics_listen: 9090\n",
			err: `serve.yml line 1: metrics_listen: must be an address such as 127.0.0.1:9090, or off (got "9090")`},
		{name: "a URL in the variable", env: "http://localhost:9090/metrics",
			err: `DIXIT_METRICS_LISTEN: must be an address such as 127.0.0.1:9090, or off (got "http://localhost:9090/metrics")`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vars := map[string]string{"DIXIT_METRICS_LISTEN": tc.env}
			for k, v := range required {
				vars[k] = v
			}
			path := ""
			if tc.yaml != "" {
				path = filepath.Join(t.TempDir(), "serve.yml")
				require.NoError(t, os.WriteFile(path, []byte(tc.yaml), 0o644))
			}
			c, err := Load(path, env(vars))
			if tc.err != "" {
				require.Error(t, err)
				assert.Equal(t, tc.err, strings.ReplaceAll(err.Error(), filepath.Dir(path)+string(filepath.Separator), ""))
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, c.MetricsListen)
		})
	}
}
