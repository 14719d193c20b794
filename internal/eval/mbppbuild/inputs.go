package main

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
)

// input is one data file the corpus is built from, pinned by repository, commit, path
// and blob, so that a rebuild reads exactly the bytes this build read.
type input struct {
	Repo   string // owner/name on GitHub
	Commit string
	Path   string
	Blob   string // git blob id of Path at Commit
	Coder  string // the coder id its solutions get: <source>#<k>
	Role   string // what the builder takes from it
}

// The commits of the snapshots read (README.md, "Sources and licences").
const (
	agentCoderCommit = "dddd1b99921da63e3ec3e46a75704c8a29170dbe"
	reflexionCommit  = "218cf0ef1df84b05ce379dd4a8e47f17766733a0"
	ldbCommit        = "49ac191f181d47911cf38e5b9944fbbe6d4a6e60"
)

func agentCoderRound(k int, blob string) input {
	return input{Repo: "huangd1999/AgentCoder", Commit: agentCoderCommit,
		Path: fmt.Sprintf("dataset/zero_shot_gpt-3.5-turbo_%d_mbpp.json", k), Blob: blob, Coder: fmt.Sprintf("agentcoder/gpt-3.5-turbo#%d", k),
		Role: "`full_code` without the test_list the executor appended; `passed` is the source's label"}
}

func reflexionRun(dir, file, blob, source string) input {
	return input{Repo: "noahshinn/reflexion", Commit: reflexionCommit,
		Path: "programming_runs/root/" + dir + "/" + file, Blob: blob, Coder: source, Role: "`solution`; `is_solved` is the source's label"}
}

func ldbFile(path, blob, source string) input {
	return input{Repo: "FloridSleeves/LLMDebugger", Commit: ldbCommit, Path: path, Blob: blob, Coder: source,
		Role: "`solution`; `is_solved` is the source's label"}
}

// inputs lists every file read, in the order coders are numbered.
func inputs() []input {
	const simple, refl = "mbpp-py._simple_1_gpt-4_pass_at_k_1_py.jsonl", "mbpp-py._reflexion_5_gpt-4_pass_at_k_1_py.jsonl"
	return []input{
		agentCoderRound(0, "c97a37559eac5c1675aca3907209b900268744af"),
		agentCoderRound(1, "dbd0bf0fcc41af5ea1f33ce7a372f493fb146a77"),
		agentCoderRound(2, "4f703e4871f12ae9c806915fa86454f3cf87d071"),
		agentCoderRound(3, "5f6aafa17074cc99962d10ac0fdc2540aa7b1276"),
		agentCoderRound(4, "47a343b0614d9d754242606aa41ec14ac86df15e"),
		{Repo: "huangd1999/AgentCoder", Commit: agentCoderCommit, Path: "dataset/zero_shot_gpt-3.5-turbo_mbpp.json",
			Blob: "497a0ccfd6c36cc8d1fead861bbbcb34caef35f4", Coder: "agentcoder/gpt-3.5-turbo#5",
			Role: "`completion` (no label)"},
		reflexionRun("simple_mbpp_py", simple, "4310e147fda55ee1478691e7721a8896a4fc59c6", "reflexion/gpt-4-simple#0"),
		reflexionRun("simple_mbpp_py2", simple, "b29452a81b371532f6cecf613717183b2e1555f1", "reflexion/gpt-4-simple#1"),
		reflexionRun("reflexion_mbpp_py", refl, "b847f6e2556a694aa5ef74b3c2f4452a33d462d4", "reflexion/gpt-4-reflexion#0"),
		reflexionRun("reflexion_mbpp_py3", refl, "c665c423ec9013cbf96dc5d5d5f4d005f4b6ac9d", "reflexion/gpt-4-reflexion#1"),
		ldbFile("input_data/mbpp/seed/codellama/seed.jsonl", "f240dc64a36a9039f234e11bc3f9bc457b9b6a63", "ldb/codellama#0"),
		ldbFile("input_data/mbpp/seed/gpt-3.5-turbo-0613/seed.jsonl", "9e5176ef18f458935bb6cfa45e9d3f34d36f85a2", "ldb/gpt-3.5-turbo-0613#0"),
		ldbFile("input_data/mbpp/seed/starcoder/seed.jsonl", "83f7035b51992533bbaeefc8dca1ccd2c51da8ed", "ldb/starcoder#0"),
		ldbFile("results/ldb/mbpp/codellama/results.jsonl", "07cfd5597016ccf635b00bff71c31435d7aaf82c", "ldb-debug/codellama#0"),
		ldbFile("results/ldb/mbpp/gpt-3.5-turbo-0613/results.jsonl", "fc44394512cf405c5b088dfcdd1aa51525b9839a", "ldb-debug/gpt-3.5-turbo-0613#0"),
		ldbFile("results/ldb/mbpp/starcoder/results.jsonl", "4621a79a7980c566d4eac2b77325ecb8e2e6cda4", "ldb-debug/starcoder#0"),
	}
}

// read returns the input's bytes from a bare mirror under mirrors (mirrors/owner+name/repo),
// after checking that Path at Commit is still the pinned blob.
func (in input) read(ctx context.Context, mirrors string) ([]byte, error) {
	dir := filepath.Join(mirrors, strings.Replace(in.Repo, "/", "+", 1), "repo")
	got, err := git(ctx, dir, "rev-parse", in.Commit+":"+in.Path)
	if err != nil {
		return nil, fmt.Errorf("%s@%.12s %s: %w", in.Repo, in.Commit, in.Path, err)
	}
	if id := strings.TrimSpace(string(got)); id != in.Blob {
		return nil, fmt.Errorf("%s@%.12s %s is blob %s, want %s", in.Repo, in.Commit, in.Path, id, in.Blob)
	}
	b, err := git(ctx, dir, "cat-file", "blob", in.Blob)
	if err != nil {
		return nil, fmt.Errorf("%s blob %s: %w", in.Repo, in.Blob, err)
	}
	return b, nil
}

func git(ctx context.Context, dir string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}
