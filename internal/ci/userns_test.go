package ci

import (
	"context"
	"os"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/testuser"
)

// Code under test gets no user namespace of its own when the judge runs unprivileged: a
// nested one would reach kernel code the sandbox keeps out (and the shipped container's
// seccomp profile allows namespaces for bwrap's sake). As root the judge makes no user
// namespace at all; that gap is in docs/judge.md.
func TestNoNestedUserNamespaceForTests(t *testing.T) {
	testuser.AlsoAsNobody(t)
	if os.Geteuid() == 0 {
		t.Log("as root the sandbox has no user namespace to lock: checked as uid 65534 above")
		return
	}
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("unshare (util-linux) is not installed")
	}
	l := newShellJudge(t, func(o *LocalOptions) { o.Sandbox = SandboxBwrap; o.WorkDir = t.TempDir() })
	vs, err := l.Run(context.Background(), 1, []Job{shellJob("userns", "unshare -U true 2>&1; echo \"unshare exit=$?\"; exit 1\n")})
	require.NoError(t, err)
	require.Len(t, vs, 1)
	assert.Contains(t, vs[0].Output, "unshare exit=1", "a nested user namespace is refused")
}
