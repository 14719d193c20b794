package serveconfig

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// LoadOrFirst reads bot serve's configuration from path (--config) and the environment.
// It reports a first start when path names a file that is not there yet and nothing else
// configures an App: cfg is then the rest of the configuration, for registering the App
// (appsetup.FirstStart) at publicURL (--public-url), which must then be set.
func LoadOrFirst(path, publicURL string, getenv func(string) string) (cfg Config, first bool, err error) {
	if path == "" {
		cfg, err = Load("", getenv)
		return cfg, false, err
	}
	info, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		cfg, err := Load("", getenv)
		switch {
		case errors.Is(err, ErrNoApp) && publicURL == "":
			return cfg, false, fmt.Errorf("--config %s is not there and no GitHub App is configured: add --public-url URL (DIXIT_PUBLIC_URL), the address GitHub reaches this server at, to register the App from a page now (or run bot setup --out DIR)", path)
		case errors.Is(err, ErrNoApp):
			return cfg, true, nil
		}
		return Config{}, false, fmt.Errorf("--config %s: no such file or directory", path) // something else configures the App
	case err != nil:
		return Config{}, false, fmt.Errorf("--config %s: %w", path, errors.Unwrap(err))
	case info.IsDir():
		return Config{}, false, fmt.Errorf("--config %s: a directory, not a file", path)
	}
	cfg, err = Load(path, getenv)
	return cfg, false, err
}
