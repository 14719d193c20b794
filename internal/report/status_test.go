package report

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/dixit-bot/dixit/internal/orchestrate"
)

func TestStatusFollowsTheRun(t *testing.T) {
	s := NewStatus("r1", []string{"amber", "basil", "cedar"}, []string{"ivy", "jun"})
	ctx := context.Background()
	for _, ev := range sampleResult().Events {
		s.Event(ctx, ev)
		if ev.Kind == orchestrate.EvVet {
			md := s.Markdown()
			assert.Contains(t, md, "round 1")
			assert.Contains(t, md, "**1 vetted test**")
		}
	}
	s.Event(ctx, orchestrate.Event{Kind: orchestrate.EvHibernate, Agent: "jun", Round: 2})
	md := s.Markdown()
	assert.True(t, strings.HasPrefix(md, Marker("r1")), "the marker finds the comment to edit")
	assert.Contains(t, md, "### Dixit: CODERS_STUCK")
	assert.Contains(t, md, "| basil | WA |")
	assert.Contains(t, md, "| amber | ACC |")
	assert.Contains(t, md, "| cedar | — |", "a coder not yet run against the suite")
	assert.Contains(t, md, "| jun | hibernated |")
	assert.Contains(t, md, "| ivy | active |")
}

func TestStatusShowsActionsMinutesOnlyWhenThereAreSome(t *testing.T) {
	s := NewStatus("r", []string{"amber"}, nil)
	assert.NotContains(t, s.Markdown(), "GitHub Actions", "the local judge costs no minutes")
	minutes := 0
	s.CountMinutes(func() int { return minutes })
	assert.NotContains(t, s.Markdown(), "GitHub Actions")
	minutes = 12
	assert.Contains(t, s.Markdown(), "· 12 GitHub Actions minutes")
}
