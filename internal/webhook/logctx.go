package webhook

import (
	"context"
	"encoding/json"
	"log/slog"

	"github.com/dixit-bot/dixit/internal/logkey"
)

type loggerKey struct{}

// WithLogger returns a context carrying l; Logger(ctx) returns it.
func WithLogger(ctx context.Context, l *slog.Logger) context.Context {
	return context.WithValue(ctx, loggerKey{}, l)
}

// Logger returns the logger carried by ctx, already holding the delivery's log
// keys when ctx came from a worker. Without one it returns a logger that
// discards everything.
func Logger(ctx context.Context) *slog.Logger {
	if l, ok := ctx.Value(loggerKey{}).(*slog.Logger); ok && l != nil {
		return l
	}
	return slog.New(slog.DiscardHandler)
}

// payloadKeys holds the few payload fields that become log keys.
type payloadKeys struct {
	Installation *struct {
		ID int64 `json:"id"`
	} `json:"installation"`
	Repository *struct {
		FullName string `json:"full_name"`
	} `json:"repository"`
	Issue *struct {
		Number int `json:"number"`
	} `json:"issue"`
	PullRequest *struct {
		Number int `json:"number"`
	} `json:"pull_request"`
}

// deliveryAttrs returns the log attributes of one delivery: its id and event
// always, the installation, repository and issue (or pull request) number when
// the payload has them.
func deliveryAttrs(id, event string, payload []byte) []any {
	attrs := []any{slog.String(logkey.DeliveryID, id), slog.String(logkey.Event, event)}
	var p payloadKeys
	if err := json.Unmarshal(payload, &p); err != nil {
		return attrs // the payload was validated on receipt; keep the two keys
	}
	if p.Installation != nil && p.Installation.ID != 0 {
		attrs = append(attrs, slog.Int64(logkey.InstallationID, p.Installation.ID))
	}
	if p.Repository != nil && p.Repository.FullName != "" {
		attrs = append(attrs, slog.String(logkey.Repository, p.Repository.FullName))
	}
	switch {
	case p.Issue != nil && p.Issue.Number != 0:
		attrs = append(attrs, slog.Int(logkey.Issue, p.Issue.Number))
	case p.PullRequest != nil && p.PullRequest.Number != 0:
		attrs = append(attrs, slog.Int(logkey.Issue, p.PullRequest.Number))
	}
	return attrs
}
