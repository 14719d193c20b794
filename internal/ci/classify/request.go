package classify

import (
	"errors"
	"fmt"
	"os"

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
	treeDir, repo, ref, tests, contractFile, configFile := in.Tree, in.Repo, in.Ref, in.Tests, in.Contract, in.Config
	reruns, runID, batchID := in.Reruns, in.Run, in.Batch
	var o Options
	var err error
	switch {
	case treeDir != "" && repo != "":
		return o, errors.New("give --tree DIR or --repo DIR [--ref REF], not both")
	case treeDir != "":
		o.Tree, err = gitstate.ReadDir(treeDir)
	case repo != "":
		o.Tree, err = gitstate.ReadRevision(repo, ref)
	default:
		return o, errors.New("give the coder's tree: --tree DIR or --repo DIR [--ref REF]")
	}
	if err != nil {
		return o, err
	}
	if tests == "" {
		return o, errors.New("give the tests: --tests batch.json or --tests DIR")
	}
	if contractFile != "" && configFile != "" {
		return o, errors.New("give --contract or --config, not both")
	}
	var batch Batch
	if fi, err := os.Stat(tests); err != nil {
		return o, err
	} else if fi.IsDir() {
		if o.Tests, err = DirTests(tests); err != nil {
			return o, err
		}
	} else if batch, o.Tests, err = ReadBatch(tests); err != nil {
		return o, err
	}
	o.Run, o.Batch, o.Reruns = batch.Run, batch.Batch, batch.Reruns
	if runID != "" {
		if o.Run != "" && o.Run != runID {
			return o, fmt.Errorf("--run %s, but the batch is for run %s", runID, o.Run)
		}
		o.Run = runID
	}
	if batchID != "" {
		if o.Batch != "" && o.Batch != batchID {
			return o, fmt.Errorf("--batch %s, but the batch file is %s", batchID, o.Batch)
		}
		o.Batch = batchID
	}
	configReruns := 0
	switch {
	case contractFile != "":
		data, err := os.ReadFile(contractFile)
		if err != nil {
			return o, err
		}
		if o.Contract, err = ContractFromJSON(data); err != nil {
			return o, fmt.Errorf("%s: %w", contractFile, err)
		}
	case configFile != "":
		if o.Contract, configReruns, err = ContractFromConfig(configFile); err != nil {
			return o, err
		}
	case len(batch.Contract) > 0:
		if o.Contract, err = ContractFromJSON(batch.Contract); err != nil {
			return o, fmt.Errorf("%s: %w", tests, err)
		}
	default:
		return o, errors.New("no contract: the batch has none; give --contract FILE or --config dixit.yml")
	}
	switch {
	case reruns > 0:
		o.Reruns = reruns
	case o.Reruns > 0:
	case configReruns > 0:
		o.Reruns = configReruns
	default:
		o.Reruns = 20
	}
	return o, nil
}
