package classify

import (
	"errors"
	"fmt"
	"os"

	"github.com/dixit-bot/dixit/internal/ci"
	"github.com/dixit-bot/dixit/internal/gitstate"
)

// Request is what `bot classify` is asked, flag by flag: the coder's tree (--tree DIR, or
// --repo DIR at --ref REF), the tests (--tests, a batch file or a directory), the contract
// (--contract FILE, --config dixit.yml, or the batch's own), the reruns, and the ids the
// results echo.
type Request struct {
	Tree, Repo, Ref  string
	Tests            string
	Contract, Config string
	Reruns           int
	Run, Batch       string
}

// Options reads the tree, the tests, the contract and the reruns the request names. Its
// errors name the flag to change.
func (in Request) Options() (Options, error) {
	var o Options
	var err error
	if o.Tree, err = in.tree(); err != nil {
		return o, err
	}
	if in.Tests == "" {
		return o, errors.New("give the tests: --tests batch.json or --tests DIR")
	}
	if in.Contract != "" && in.Config != "" {
		return o, errors.New("give --contract or --config, not both")
	}
	batch, err := in.batch(&o)
	if err != nil {
		return o, err
	}
	configReruns, err := in.contract(&o, batch)
	if err != nil {
		return o, err
	}
	switch {
	case in.Reruns > 0:
		o.Reruns = in.Reruns
	case o.Reruns > 0:
	case configReruns > 0:
		o.Reruns = configReruns
	default:
		o.Reruns = 20
	}
	return o, nil
}

// tree reads the coder's tree: a directory, or a repository at a revision.
func (in Request) tree() (ci.Tree, error) {
	switch {
	case in.Tree != "" && in.Repo != "":
		return nil, errors.New("give --tree DIR or --repo DIR [--ref REF], not both")
	case in.Tree != "":
		return gitstate.ReadDir(in.Tree)
	case in.Repo != "":
		return gitstate.ReadRevision(in.Repo, in.Ref)
	}
	return nil, errors.New("give the coder's tree: --tree DIR or --repo DIR [--ref REF]")
}

// batch reads the tests into o, from a directory or a batch file, and the run, batch and
// reruns a batch file names, which the flags may repeat but not contradict.
func (in Request) batch(o *Options) (Batch, error) {
	var batch Batch
	if fi, err := os.Stat(in.Tests); err != nil {
		return batch, err
	} else if fi.IsDir() {
		if o.Tests, err = DirTests(in.Tests); err != nil {
			return batch, err
		}
	} else if batch, o.Tests, err = ReadBatch(in.Tests); err != nil {
		return batch, err
	}
	o.Run, o.Batch, o.Reruns = batch.Run, batch.Batch, batch.Reruns
	if in.Run != "" {
		if o.Run != "" && o.Run != in.Run {
			return batch, fmt.Errorf("--run %s, but the batch is for run %s", in.Run, o.Run)
		}
		o.Run = in.Run
	}
	if in.Batch != "" {
		if o.Batch != "" && o.Batch != in.Batch {
			return batch, fmt.Errorf("--batch %s, but the batch file is %s", in.Batch, o.Batch)
		}
		o.Batch = in.Batch
	}
	return batch, nil
}

// contract reads the contract into o: from --contract, from --config (which may also
// say the reruns, returned), or from the batch file.
func (in Request) contract(o *Options, batch Batch) (int, error) {
	var err error
	switch {
	case in.Contract != "":
		data, err := os.ReadFile(in.Contract)
		if err != nil {
			return 0, err
		}
		if o.Contract, err = ContractFromJSON(data); err != nil {
			return 0, fmt.Errorf("%s: %w", in.Contract, err)
		}
		return 0, nil
	case in.Config != "":
		var reruns int
		if o.Contract, reruns, err = ContractFromConfig(in.Config); err != nil {
			return 0, err
		}
		return reruns, nil
	case len(batch.Contract) > 0:
		if o.Contract, err = ContractFromJSON(batch.Contract); err != nil {
			return 0, fmt.Errorf("%s: %w", in.Tests, err)
		}
		return 0, nil
	}
	return 0, errors.New("no contract: the batch has none; give --contract FILE or --config dixit.yml")
}
