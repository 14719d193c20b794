package doctor_test

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/config"
	"github.com/dixit-bot/dixit/internal/doctor"
	"github.com/dixit-bot/dixit/internal/llm"
	"github.com/dixit-bot/dixit/internal/llm/llmtest"
)

// TestTheAppStartsWithoutTheDefaultModel: repositories name their own models, so an
// endpoint without the default one is logged, and the App starts; with DIXIT_MODEL, that
// model must be there.
func TestTheAppStartsWithoutTheDefaultModel(t *testing.T) {
	notFound := llmtest.Step{Status: http.StatusNotFound, Error: &llmtest.APIError{Message: `model not found, try pulling it first`}}
	srv := llmtest.NewServer(t)
	srv.Enqueue(notFound, notFound)
	env := map[string]string{"OPENAI_BASE_URL": srv.URL(), "OPENAI_API_KEY": srv.APIKey()}
	var logged bytes.Buffer
	start := llm.Start{Getenv: func(k string) string { return env[k] }, Logger: slog.New(slog.NewTextHandler(&logged, nil))}

	client, err := doctor.AppClient(context.Background(), start)
	require.NoError(t, err)
	assert.NotNil(t, client)
	assert.Contains(t, logged.String(), "the endpoint does not serve the default model")
	require.Len(t, srv.Requests(), 1, "the start check asked once")
	assert.Equal(t, config.Defaults().Agents.Model, srv.Requests()[0].Model)

	start.Model = "qwen2.5-coder:7b"
	_, err = doctor.AppClient(context.Background(), start)
	require.ErrorIs(t, err, llm.ErrModelNotFound, "the model every run would use must be there")
}
