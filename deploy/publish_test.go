package deploy

import (
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeTools are docker and gh as scripts/publish-release.sh calls them on a runner: each
// call is one line of the log; docker login's stdin goes to its own file.
const fakeDocker = `#!/bin/sh
echo "docker $*" >>"$FAKE_LOG"
case "$1 $2 $3" in
  "login "*) cat >"$FAKE_LOG.stdin" ;;
  "load "*) echo "Loaded image: $FAKE_LOADED" ;;
  "buildx imagetools inspect") echo "{\"mediaType\":\"application/vnd.oci.image.index.v1+json\",\"digest\":\"sha256:$FAKE_DIGEST\",\"size\":1609}" ;;
esac
`

const fakeGH = `#!/bin/sh
echo "gh $*" >>"$FAKE_LOG"
if [ "$1 $2" = "release view" ]; then exec test -n "$FAKE_RELEASE_EXISTS"; fi
while [ $# -gt 0 ]; do
  if [ "$1" = --notes-file ]; then cat "$2" >"$FAKE_LOG.notes"; fi
  shift
done
`

type publishRun struct {
	dir, tag string
	env      []string
}

// newPublishRun lays out what the release workflow's build jobs hand the publish job: the
// archives with SHA256SUMS in dist, the images with their .sha256 in images.
func newPublishRun(t *testing.T, tag string) *publishRun {
	t.Helper()
	for _, tool := range []string{"bash", "jq", "sha256sum"} { // GitHub's runners have them
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("scripts/publish-release.sh needs %s", tool)
		}
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	for _, d := range []string{bin, filepath.Join(dir, "dist"), filepath.Join(dir, "images")} {
		require.NoError(t, os.MkdirAll(d, 0o755))
	}
	require.NoError(t, os.WriteFile(filepath.Join(bin, "docker"), []byte(fakeDocker), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(bin, "gh"), []byte(fakeGH), 0o755))
	version := strings.TrimPrefix(tag, "v")
	var sums strings.Builder
	for _, arch := range []string{"amd64", "arm64"} {
		archive := fmt.Sprintf("bot_%s_linux_%s.tar.gz", version, arch)
		fmt.Fprintf(&sums, "%x  %s\n", writeFile(t, filepath.Join(dir, "dist", archive), "bot for "+arch), archive)
		img := fmt.Sprintf("dixit-image-%s-linux-%s.tar.gz", version, arch)
		sum := writeFile(t, filepath.Join(dir, "images", img), "image for "+arch)
		writeFile(t, filepath.Join(dir, "images", img+".sha256"), fmt.Sprintf("%x  %s\n", sum, img))
	}
	writeFile(t, filepath.Join(dir, "dist", "SHA256SUMS"), sums.String())
	return &publishRun{dir: dir, tag: tag, env: append(os.Environ(),
		"PATH="+bin+":"+os.Getenv("PATH"), "FAKE_LOG="+filepath.Join(dir, "log"),
		"FAKE_LOADED=dixit:"+tag, "FAKE_DIGEST="+strings.Repeat("ab", 32),
		"GH_TOKEN=ghs_the-jobs-token", "GITHUB_REPOSITORY=Acme/Dixit", "GITHUB_ACTOR=octo",
	)}
}

func writeFile(t *testing.T, path, data string) [32]byte {
	t.Helper()
	require.NoError(t, os.WriteFile(path, []byte(data), 0o644))
	return sha256.Sum256([]byte(data))
}

// run runs the script and returns its output and the calls it made, one a line.
func (p *publishRun) run(t *testing.T, env ...string) (string, []string, error) {
	t.Helper()
	cmd := exec.Command("bash", "../scripts/publish-release.sh", p.tag, filepath.Join(p.dir, "dist"), filepath.Join(p.dir, "images"))
	cmd.Env = append(p.env, env...)
	out, err := cmd.CombinedOutput()
	log, _ := os.ReadFile(filepath.Join(p.dir, "log"))
	return string(out), strings.Split(strings.TrimSpace(string(log)), "\n"), err
}

func (p *publishRun) read(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(p.dir, name))
	require.NoError(t, err)
	return string(data)
}

func TestPublishPushesTheImageThenAttachesTheArchives(t *testing.T) {
	p := newPublishRun(t, "v1.2.3")
	out, calls, err := p.run(t)
	require.NoError(t, err, out)
	dist, images := filepath.Join(p.dir, "dist"), filepath.Join(p.dir, "images")
	assert.Equal(t, []string{
		"docker login ghcr.io --username octo --password-stdin",
		"docker load --input " + images + "/dixit-image-1.2.3-linux-amd64.tar.gz",
		"docker tag dixit:v1.2.3 ghcr.io/acme/dixit:v1.2.3-amd64",
		"docker push ghcr.io/acme/dixit:v1.2.3-amd64",
		"docker load --input " + images + "/dixit-image-1.2.3-linux-arm64.tar.gz",
		"docker tag dixit:v1.2.3 ghcr.io/acme/dixit:v1.2.3-arm64",
		"docker push ghcr.io/acme/dixit:v1.2.3-arm64",
		"docker buildx imagetools create --tag ghcr.io/acme/dixit:v1.2.3 ghcr.io/acme/dixit:v1.2.3-amd64 ghcr.io/acme/dixit:v1.2.3-arm64",
		"docker buildx imagetools inspect ghcr.io/acme/dixit:v1.2.3 --format {{json .Manifest}}",
		"gh release view v1.2.3 --repo Acme/Dixit",
		"gh release create v1.2.3 " + dist + "/bot_1.2.3_linux_amd64.tar.gz " + dist + "/bot_1.2.3_linux_arm64.tar.gz " + dist + "/SHA256SUMS" +
			" --repo Acme/Dixit --verify-tag --title v1.2.3 --notes-file " + notesArg(calls),
	}, calls, "the image is lower case, as registries want; the release is not a prerelease")
	assert.Equal(t, "ghs_the-jobs-token", p.read(t, "log.stdin"), "the token reaches docker on stdin, never in its arguments")
	notes := p.read(t, "log.notes")
	assert.Contains(t, notes, "ghcr.io/acme/dixit:v1.2.3@sha256:"+strings.Repeat("ab", 32), "the notes name the image by tag and digest")
	assert.Contains(t, notes, "gh release download v1.2.3 --repo Acme/Dixit")
	assert.Contains(t, notes, "sha256sum --ignore-missing -c SHA256SUMS")
	assert.Contains(t, out, "publish: https://github.com/Acme/Dixit/releases/tag/v1.2.3")
}

// notesArg is the temporary file the script passed as --notes-file.
func notesArg(calls []string) string {
	last := calls[len(calls)-1]
	return last[strings.LastIndex(last, " ")+1:]
}

func TestPublishMarksAPrereleaseAndReplacesOnARerun(t *testing.T) {
	p := newPublishRun(t, "v2.0.0-rc.1")
	out, calls, err := p.run(t)
	require.NoError(t, err, out)
	assert.True(t, strings.HasSuffix(calls[len(calls)-1], " --prerelease"), calls[len(calls)-1])

	p = newPublishRun(t, "v1.2.3")
	out, calls, err = p.run(t, "FAKE_RELEASE_EXISTS=1")
	require.NoError(t, err, out)
	tail := strings.Join(calls[len(calls)-2:], "\n")
	assert.Contains(t, tail, "gh release upload v1.2.3 ")
	assert.Contains(t, tail, " --repo Acme/Dixit --clobber\ngh release edit v1.2.3 --repo Acme/Dixit --notes-file ")
	assert.NotContains(t, strings.Join(calls, "\n"), "gh release create")
}

// A release is all there or not at all: what does not match its sums publishes nothing.
func TestPublishRefusesWhatTheBuildsDidNotMake(t *testing.T) {
	cases := []struct {
		name  string
		spoil func(p *publishRun)
		env   []string
		want  string
	}{
		{"an archive changed", func(p *publishRun) {
			writeFile(t, filepath.Join(p.dir, "dist", "bot_1.2.3_linux_arm64.tar.gz"), "something else")
		}, nil, "do not match their SHA256SUMS; nothing published"},
		{"an image missing", func(p *publishRun) {
			require.NoError(t, os.Remove(filepath.Join(p.dir, "images", "dixit-image-1.2.3-linux-arm64.tar.gz")))
		}, nil, "dixit-image-1.2.3-linux-arm64.tar.gz is missing or does not match"},
		{"an architecture not built", func(p *publishRun) {
			sums := p.read(t, "dist/SHA256SUMS")
			writeFile(t, filepath.Join(p.dir, "dist", "SHA256SUMS"), sums[:strings.Index(sums, "\n")+1])
		}, nil, "SHA256SUMS does not list bot_1.2.3_linux_arm64.tar.gz; nothing published"},
		{"not a version tag", func(p *publishRun) { p.tag = "latest" }, nil, "latest is not a version tag"},
		{"no token", func(*publishRun) {}, []string{"GH_TOKEN="}, "GH_TOKEN must hold a token with contents: write and packages: write"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := newPublishRun(t, "v1.2.3")
			c.spoil(p)
			out, calls, err := p.run(t, c.env...)
			require.Error(t, err)
			assert.Contains(t, out, c.want)
			assert.Equal(t, []string{""}, calls, "nothing was called, so nothing published")
		})
	}
	t.Run("an image under another name", func(t *testing.T) {
		p := newPublishRun(t, "v1.2.3")
		out, calls, err := p.run(t, "FAKE_LOADED=dixit:v1.2.2")
		require.Error(t, err)
		assert.Contains(t, out, `the amd64 image loaded as "dixit:v1.2.2", not dixit:v1.2.3`)
		assert.NotContains(t, strings.Join(calls, "\n"), "push", "nothing pushed")
		assert.NotContains(t, strings.Join(calls, "\n"), "gh release")
	})
}
