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

// The fields of the manifests the tests read; yaml ignores the rest.
type (
	seccompProfile struct {
		Type             string `yaml:"type"`
		LocalhostProfile string `yaml:"localhostProfile"`
	}
	port struct {
		Name          string `yaml:"name"`
		ContainerPort int    `yaml:"containerPort"`
		Port          any    `yaml:"port"`
		TargetPort    any    `yaml:"targetPort"`
		Protocol      string `yaml:"protocol"`
	}
	container struct {
		Image           string `yaml:"image"`
		Ports           []port `yaml:"ports"`
		SecurityContext struct {
			AllowPrivilegeEscalation *bool  `yaml:"allowPrivilegeEscalation"`
			ReadOnlyRootFilesystem   bool   `yaml:"readOnlyRootFilesystem"`
			Privileged               bool   `yaml:"privileged"`
			ProcMount                string `yaml:"procMount"`
			Capabilities             struct {
				Add  []string `yaml:"add"`
				Drop []string `yaml:"drop"`
			} `yaml:"capabilities"`
		} `yaml:"securityContext"`
		VolumeMounts []struct {
			Name      string `yaml:"name"`
			MountPath string `yaml:"mountPath"`
		} `yaml:"volumeMounts"`
	}
	podSpec struct {
		HostUsers       *bool `yaml:"hostUsers"`
		SecurityContext struct {
			RunAsNonRoot    bool           `yaml:"runAsNonRoot"`
			RunAsUser       int            `yaml:"runAsUser"`
			SeccompProfile  seccompProfile `yaml:"seccompProfile"`
			AppArmorProfile struct {
				Type string `yaml:"type"`
			} `yaml:"appArmorProfile"`
		} `yaml:"securityContext"`
		Containers []container `yaml:"containers"`
		Volumes    []struct {
			Name     string         `yaml:"name"`
			EmptyDir map[string]any `yaml:"emptyDir"`
			PVC      map[string]any `yaml:"persistentVolumeClaim"`
		} `yaml:"volumes"`
	}
	peer struct {
		IPBlock           *struct{ CIDR string } `yaml:"ipBlock"`
		NamespaceSelector map[string]any         `yaml:"namespaceSelector"`
		PodSelector       map[string]any         `yaml:"podSelector"`
	}
	rule struct {
		From  []peer `yaml:"from"`
		To    []peer `yaml:"to"`
		Ports []port `yaml:"ports"`
	}
	manifest struct {
		Kind string `yaml:"kind"`
		Spec struct {
			Strategy    struct{ Type string }  `yaml:"strategy"`
			Template    struct{ Spec podSpec } `yaml:"template"`
			Ports       []port                 `yaml:"ports"`
			PolicyTypes []string               `yaml:"policyTypes"`
			Ingress     []rule                 `yaml:"ingress"`
			Egress      []rule                 `yaml:"egress"`
			TLS         []struct {
				Hosts      []string `yaml:"hosts"`
				SecretName string   `yaml:"secretName"`
			} `yaml:"tls"`
			Rules []struct {
				HTTP struct {
					Paths []struct {
						Path     string `yaml:"path"`
						PathType string `yaml:"pathType"`
					} `yaml:"paths"`
				} `yaml:"http"`
			} `yaml:"rules"`
		} `yaml:"spec"`
	}
)

func manifests(t *testing.T) map[string]manifest {
	t.Helper()
	data, err := os.ReadFile("kubernetes/dixit.yaml")
	require.NoError(t, err)
	dec := yaml.NewDecoder(bytes.NewReader(data))
	byKind := map[string]manifest{}
	for {
		var m manifest
		err := dec.Decode(&m)
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		require.NotContains(t, byKind, m.Kind, "one %s", m.Kind)
		byKind[m.Kind] = m
	}
	return byKind
}

func TestKubernetesManifests(t *testing.T) {
	m := manifests(t)
	for _, kind := range []string{"Secret", "PersistentVolumeClaim", "Deployment", "Service", "Ingress", "NetworkPolicy"} {
		assert.Contains(t, m, kind)
	}
	assert.Equal(t, "Recreate", m["Deployment"].Spec.Strategy.Type, "never two servers on one state volume")
}

// The pod is confined, and confined so that bubblewrap can still build its sandbox.
func TestDeploymentLetsBubblewrapRunUnprivileged(t *testing.T) {
	pod := manifests(t)["Deployment"].Spec.Template.Spec
	require.Len(t, pod.Containers, 1)
	c := pod.Containers[0]
	sc := c.SecurityContext

	assert.True(t, pod.SecurityContext.RunAsNonRoot)
	assert.Equal(t, 10001, pod.SecurityContext.RunAsUser, "the image's user")
	require.NotNil(t, sc.AllowPrivilegeEscalation)
	assert.False(t, *sc.AllowPrivilegeEscalation)
	assert.False(t, sc.Privileged)
	assert.Equal(t, []string{"ALL"}, sc.Capabilities.Drop)
	assert.Empty(t, sc.Capabilities.Add, "bwrap needs no capability outside its own user namespace")
	assert.True(t, sc.ReadOnlyRootFilesystem)

	assert.Equal(t, seccompProfile{Type: "Localhost", LocalhostProfile: "dixit/seccomp-bwrap.json"}, pod.SecurityContext.SeccompProfile)
	_, err := os.Stat("seccomp-bwrap.json")
	assert.NoError(t, err, "the profile the pod names ships in deploy/")
	// A masked /proc forbids bwrap's own procfs; Kubernetes allows Unmasked only in a
	// pod with its own user namespace.
	assert.Equal(t, "Unmasked", sc.ProcMount)
	require.NotNil(t, pod.HostUsers)
	assert.False(t, *pod.HostUsers)
	assert.Equal(t, "Unconfined", pod.SecurityContext.AppArmorProfile.Type, "the runtime's default AppArmor profile denies mount")

	mounts := map[string]string{}
	for _, vm := range c.VolumeMounts {
		mounts[vm.MountPath] = vm.Name
	}
	volumes := map[string]bool{}
	for _, v := range pod.Volumes {
		volumes[v.Name] = v.PVC != nil || v.EmptyDir != nil
	}
	for _, dir := range []string{"/var/lib/dixit", "/tmp"} {
		require.Contains(t, mounts, dir, "%s is writable on a read-only root", dir)
		assert.True(t, volumes[mounts[dir]], "%s is a volume the pod can write", dir)
	}
	assert.Regexp(t, `^[A-Za-z0-9./-]+/[a-z0-9-]+:v[0-9]+\.[0-9]+\.[0-9]+(@sha256:[0-9a-f]{64})?$`, c.Image, "a released version")
}

// Only the webhook is published: through the Ingress, over TLS, and nothing else reaches
// the pod; metrics stay inside.
func TestOnlyTheWebhookIsPublished(t *testing.T) {
	m := manifests(t)
	pod := m["Deployment"].Spec.Template.Spec
	assert.Equal(t, []port{{Name: "webhook", ContainerPort: 8080}}, pod.Containers[0].Ports)
	assert.Equal(t, []port{{Name: "webhook", Port: 80, TargetPort: "webhook"}}, m["Service"].Spec.Ports)

	ing := m["Ingress"].Spec
	require.Len(t, ing.TLS, 1)
	assert.NotEmpty(t, ing.TLS[0].SecretName)
	require.Len(t, ing.Rules, 1)
	require.Len(t, ing.Rules[0].HTTP.Paths, 1)
	assert.Equal(t, "/webhook", ing.Rules[0].HTTP.Paths[0].Path)
	assert.Equal(t, "Exact", ing.Rules[0].HTTP.Paths[0].PathType, "not /metrics, not the health endpoints")

	np := m["NetworkPolicy"].Spec
	assert.ElementsMatch(t, []string{"Ingress", "Egress"}, np.PolicyTypes)
	require.Len(t, np.Ingress, 1)
	assert.Equal(t, []port{{Protocol: "TCP", Port: 8080}}, np.Ingress[0].Ports)
	require.NotEmpty(t, np.Ingress[0].From, "ingress from the controller only, not from anywhere")
}

func TestEgressIsDNSGitHubAndTheModel(t *testing.T) {
	np := manifests(t)["NetworkPolicy"].Spec
	var ports []string
	for _, r := range np.Egress {
		require.NotEmpty(t, r.To, "an egress rule to everywhere")
		for _, p := range r.To {
			if p.IPBlock != nil {
				assert.NotEqual(t, "0.0.0.0/0", p.IPBlock.CIDR)
			}
		}
		for _, p := range r.Ports {
			ports = append(ports, p.Protocol+"/"+strings.TrimSpace(yamlScalar(p.Port)))
		}
	}
	assert.ElementsMatch(t, []string{"UDP/53", "TCP/53", "TCP/443", "TCP/443"}, ports)
}

func yamlScalar(v any) string {
	out, _ := yaml.Marshal(v)
	return string(out)
}

// The Ingress's certificate comes from the issuer shipped beside it, answered through
// the same ingress class.
func TestIngressTLSComesFromTheShippedIssuer(t *testing.T) {
	data, err := os.ReadFile("kubernetes/dixit.yaml")
	require.NoError(t, err)
	var issuer struct {
		Kind     string `yaml:"kind"`
		Metadata struct {
			Name string `yaml:"name"`
		} `yaml:"metadata"`
		Spec struct {
			ACME struct {
				Solvers []struct {
					HTTP01 struct {
						Ingress struct {
							Class string `yaml:"ingressClassName"`
						} `yaml:"ingress"`
					} `yaml:"http01"`
				} `yaml:"solvers"`
			} `yaml:"acme"`
		} `yaml:"spec"`
	}
	raw, err := os.ReadFile("kubernetes/tls-letsencrypt.yaml")
	require.NoError(t, err)
	require.NoError(t, yaml.Unmarshal(raw, &issuer))
	assert.Equal(t, "ClusterIssuer", issuer.Kind)
	assert.Contains(t, string(data), "cert-manager.io/cluster-issuer: "+issuer.Metadata.Name)
	require.Len(t, issuer.Spec.ACME.Solvers, 1)
	assert.Equal(t, "nginx", issuer.Spec.ACME.Solvers[0].HTTP01.Ingress.Class)
	assert.Contains(t, string(data), "ingressClassName: nginx")
}
