package doctor

import (
	"context"
	"log/slog"

	"github.com/dixit-bot/dixit/internal/llm"
)

// Start is how a command gets its model client and checks it first (llm.Start), named
// here so that the commands reach the model only through the doctor.
type Start = llm.Start

// Choice is what a command's flags say of the model.
type Choice struct {
	Model     string // --model: replaces every model the settings name; "" leaves it to DIXIT_MODEL
	SkipCheck bool   // --skip-doctor: start without the check
}

// Override is the model named by --model, else DIXIT_MODEL, and where it came from; ""
// when neither names one.
func (c Choice) Override(getenv func(string) string) (model, source string) {
	if c.Model != "" {
		return c.Model, "--model"
	}
	if m := getenv("DIXIT_MODEL"); m != "" {
		return m, "DIXIT_MODEL"
	}
	return "", ""
}

// Start is how a live run gets its model client: the override, checked first unless
// --skip-doctor or DIXIT_SKIP_DOCTOR=1; models lists the models to check when no
// override names one.
func (c Choice) Start(getenv func(string) string, logger *slog.Logger, models func() ([]string, error)) Start {
	model, source := c.Override(getenv)
	return llm.Start{Getenv: getenv, Logger: logger, Model: model, Source: source, Models: models,
		SkipCheck: c.SkipCheck || getenv("DIXIT_SKIP_DOCTOR") == "1"}
}

// Client is a live run's client for session.Local (its Client), and the endpoint's name.
func (c Choice) Client(getenv func(string) string, logger *slog.Logger) func(context.Context, func() ([]string, error)) (llm.Client, string, error) {
	return func(ctx context.Context, models func() ([]string, error)) (llm.Client, string, error) {
		start := c.Start(getenv, logger, models)
		client, err := start.Client(ctx)
		return client, start.Endpoint(), err
	}
}

// ServeClient is bot serve's model client: none when the environment names no endpoint
// (neither OPENAI_API_KEY nor OPENAI_BASE_URL), else AppClient's.
func ServeClient(ctx context.Context, start Start) (llm.Client, error) {
	if start.Getenv("OPENAI_API_KEY") == "" && start.Getenv("OPENAI_BASE_URL") == "" {
		return nil, nil
	}
	return AppClient(ctx, start)
}
