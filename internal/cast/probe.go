package cast

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/dixit-bot/dixit/internal/agent"
	"github.com/dixit-bot/dixit/internal/ci"
	"github.com/dixit-bot/dixit/internal/orchestrate"
)

// Prober writes the probe for differential testing once the protocol has ended. by names
// who wrote it; a nil content comes with the reason there is none.
type Prober func(ctx context.Context, res *orchestrate.Result) (content []byte, by, reason string, err error)

// maxProbe bounds a population's probe file.
const maxProbe = 1 << 20

// Prober is where this cast's probe comes from: a scripted population's probe/ file, or
// a live tester asked for one.
func (c *Cast) Prober(contract ci.Contract) Prober {
	if c.Kind == KindScripted {
		return populationProbe(c.probe)
	}
	return testerProbe(c.Testers, contract)
}

// populationProbe serves a scripted population's probe/ file.
func populationProbe(path string) Prober {
	return func(context.Context, *orchestrate.Result) ([]byte, string, string, error) {
		if path == "" {
			return nil, "", "the population has no probe/ directory", nil
		}
		f, err := os.Open(path)
		if err != nil {
			return nil, "", "", fmt.Errorf("read the population's probe: %w", err)
		}
		defer f.Close()
		data, err := io.ReadAll(io.LimitReader(f, maxProbe+1))
		if err != nil {
			return nil, "", "", fmt.Errorf("read the population's probe: %w", err)
		}
		if len(data) > maxProbe {
			return nil, "", "", fmt.Errorf("the population's probe is larger than %d bytes", maxProbe)
		}
		return data, "the scripted population (probe/)", "", nil
	}
}

// testerProbe asks a live tester for the probe, after the run: the first tester still
// awake, else the first. Its reply is journalled like any other (the request's draw
// follows its last proposal), so a resumed run does not pay for it twice.
func testerProbe(testers []orchestrate.Tester, contract ci.Contract) Prober {
	return func(ctx context.Context, res *orchestrate.Result) ([]byte, string, string, error) {
		if len(testers) == 0 {
			return nil, "", "no tester to write a probe", nil
		}
		pick, draws := testers[0], 0
		for i, st := range res.Testers {
			if i < len(testers) && st.State == "active" {
				pick, draws = testers[i], st.Proposals
				break
			}
			if i == 0 {
				draws = st.Proposals
			}
		}
		var tests []ci.Test
		for _, v := range res.Vetted {
			tests = append(tests, ci.Test{ID: fmt.Sprintf("%d", v.Number), Content: v.Content})
		}
		p, err := pick.Propose(ctx, orchestrate.Turn{Message: agent.ProbeRequest(contract, tests), Draw: draws + 1})
		if err != nil {
			return nil, "", "", fmt.Errorf("ask %s for a probe: %w", pick.Name(), err)
		}
		if p.None {
			return nil, "", fmt.Sprintf("tester %s wrote no probe", pick.Name()), nil
		}
		return p.Content, "tester " + pick.Name(), "", nil
	}
}
