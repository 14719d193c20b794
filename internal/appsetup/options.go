package appsetup

import (
	"cmp"
	"fmt"
	"net/url"
	"strings"
	"time"
)

// Options are the inputs of `bot setup`; the errors name its flags.
type Options struct {
	Listen    string        // --listen: the address the setup page (and later bot serve) listens on
	PublicURL string        // --public-url: where GitHub reaches this server; the webhook is PublicURL/webhook
	GitHubURL string        // --github-url: https://github.com/ or a GitHub Enterprise Server's https://HOST/
	APIURL    string        // --api-url: "" derives it from GitHubURL
	Org       string        // --org: the organization that owns the App; "" the signed-in user
	Name      string        // --name: "" keeps the manifest's
	Features  Features      // opt-in blocks of app-options.yml
	Out       string        // --out: directory for the credentials and serve.yml; "" prints them once
	PingWait  time.Duration // how long to wait for GitHub's ping to reach the webhook
	// NoCheck skips the webhook check, for a server that starts elsewhere (Kubernetes):
	// the summary says how to redeliver the ping once it runs.
	NoCheck bool
	// ServeConfig is set by bot serve on its first start: the --config file to write (Out is
	// its directory), with which the server goes on once the App is registered.
	ServeConfig string
}

// command is what the person started: its terminal says what comes next.
func (o Options) command() string {
	if o.ServeConfig != "" {
		return "bot serve"
	}
	return "bot setup"
}

// endpoints are the URLs the options resolve to.
type endpoints struct {
	hook string   // PublicURL/webhook
	web  *url.URL // GitHub's web pages, with a trailing slash
	api  string   // the REST API, with a trailing slash
	git  string   // where repositories are cloned: the web URL
}

func (o Options) resolve() (endpoints, error) {
	pub, err := url.Parse(o.PublicURL)
	switch {
	case o.PublicURL == "":
		return endpoints{}, fmt.Errorf("--public-url is required: the https:// address GitHub reaches this server at, such as https://dixit.example.com")
	case err != nil || (pub.Scheme != "https" && pub.Scheme != "http") || pub.Host == "" || pub.RawQuery != "":
		return endpoints{}, fmt.Errorf("--public-url %q: must be an address such as https://dixit.example.com (the webhook is that address + /webhook)", o.PublicURL)
	case o.Org != "" && !loginRE.MatchString(o.Org):
		return endpoints{}, fmt.Errorf("--org %q: not a GitHub organization name (letters, digits and single hyphens)", o.Org)
	}
	web, err := url.Parse(cmp.Or(o.GitHubURL, "https://github.com/"))
	if err != nil || (web.Scheme != "https" && web.Scheme != "http") || web.Host == "" {
		return endpoints{}, fmt.Errorf("--github-url %q: must be https://github.com/ or your GitHub Enterprise Server's address, such as https://github.example.com/", o.GitHubURL)
	}
	web.Path = strings.TrimSuffix(web.Path, "/") + "/"
	api := o.APIURL
	switch {
	case api != "":
	case web.Host == "github.com":
		api = "https://api.github.com/"
	default: // GitHub Enterprise Server serves the API under /api/v3/
		api = web.JoinPath("api/v3").String() + "/"
	}
	if u, err := url.Parse(api); err != nil || u.Host == "" {
		return endpoints{}, fmt.Errorf("--api-url %q: must be the REST API's address, such as https://github.example.com/api/v3/", o.APIURL)
	}
	if !strings.HasSuffix(api, "/") {
		api += "/"
	}
	hook := strings.TrimSuffix(pub.String(), "/") + "/webhook"
	return endpoints{hook: hook, web: web, api: api, git: web.String()}, nil
}
