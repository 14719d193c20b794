package localrun

import (
	"context"

	"github.com/dixit-bot/dixit/internal/orchestrate"
	"github.com/dixit-bot/dixit/internal/vet"
)

// vetPatch judges the patch under review once the run is over: no agent took part in a
// run that could have shown them the patch, and the patch had no vote in it.
func (s *session) vetPatch(ctx context.Context, res *orchestrate.Result, reruns int) (*vet.Verdict, error) {
	var impls []vet.Implementation
	for _, coder := range res.Coders {
		tree, err := s.ws.Source(coder.Commit)
		if err != nil {
			return nil, err
		}
		impls = append(impls, vet.Implementation{Coder: coder.Name, Tree: tree})
	}
	s.progress("the patch under review: judged on %d proposed tests, %d of them vetted", len(res.Proposals), len(res.Vetted))
	v, err := vet.Judge(ctx, s.judge, reruns, s.opts.Patch, impls, res)
	if err != nil {
		return nil, err
	}
	s.progress("the patch under review: %s — %s", v.Conclusion, v.Why)
	return &v, nil
}
