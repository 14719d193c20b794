package main

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// problem is one MBPP task as the runner receives it.
type problem struct {
	TaskID      string   `json:"task_id"`
	Number      int      `json:"-"`
	EntryPoint  string   `json:"entry_point"`
	Prompt      string   `json:"-"`
	Canonical   string   `json:"canonical"`
	TestImports []string `json:"test_imports"`
	TestList    []string `json:"test_list"`
	Coders      []raw    `json:"coders"`
}

// raw is one recorded solution before extraction.
type raw struct {
	ID     string `json:"id"`
	Source string `json:"source"`
	Code   string `json:"raw"`
	Label  *bool  `json:"label_from_source"`
	Entry  string `json:"-"` // the entry point the source names, when it names one
}

// agentCoderRecord is a record of AgentCoder's zero_shot_gpt-3.5-turbo_*_mbpp.json: MBPP
// sanitized's fields, then the model's.
type agentCoderRecord struct {
	TaskID      int      `json:"task_id"`
	Prompt      string   `json:"prompt"`
	Code        string   `json:"code"`
	TestImports []string `json:"test_imports"`
	TestList    []string `json:"test_list"`
	Completion  string   `json:"completion"`
	FullCode    *string  `json:"full_code"`
	Passed      *bool    `json:"passed"`
}

var defName = regexp.MustCompile(`(?m)^def\s+(\w+)\s*\(`)

// problems reads MBPP sanitized's test split from AgentCoder's round 0 (its first fields
// are the data set's own).
func problems(data []byte) ([]*problem, error) {
	var recs []agentCoderRecord
	if err := json.Unmarshal(data, &recs); err != nil {
		return nil, fmt.Errorf("AgentCoder round 0: %w", err)
	}
	var out []*problem
	for _, r := range recs {
		p := &problem{TaskID: "MBPP/" + strconv.Itoa(r.TaskID), Number: r.TaskID, Prompt: r.Prompt,
			Canonical: r.Code, TestImports: r.TestImports, TestList: r.TestList}
		tests := strings.Join(r.TestList, "\n")
		for _, m := range defName.FindAllStringSubmatch(r.Code, -1) {
			if strings.Contains(tests, m[1]+"(") {
				p.EntryPoint = m[1]
				break
			}
		}
		if p.EntryPoint == "" {
			return nil, fmt.Errorf("%s: no function of the reference solution is called by its test_list", p.TaskID)
		}
		out = append(out, p)
	}
	return out, nil
}

// coders reads one input's solutions, keyed by MBPP task number. skipped counts the
// records left out and why.
func coders(in input, data []byte, skipped map[string]int) (map[int]raw, error) {
	id := in.Coder
	src, _, _ := strings.Cut(id, "#")
	out := map[int]raw{}
	add := func(n int, code string, label *bool) {
		out[n] = raw{ID: id, Source: src, Code: code, Label: label}
	}
	switch {
	case strings.HasSuffix(in.Path, ".json"):
		var recs []agentCoderRecord
		if err := json.Unmarshal(data, &recs); err != nil {
			return nil, fmt.Errorf("%s: %w", in.Path, err)
		}
		for _, r := range recs {
			if r.FullCode == nil {
				add(r.TaskID, r.Completion, nil)
				continue
			}
			// The executor appended the test_list to the program it ran: take it off.
			suffix := strings.TrimSpace(strings.Join(r.TestList, "\n"))
			code, ok := strings.CutSuffix(strings.TrimRight(*r.FullCode, "\n "), suffix)
			if !ok {
				skipped["agentcoder full_code without its test_list at the end"]++
				continue
			}
			add(r.TaskID, code, r.Passed)
		}
	default:
		for i, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			var r struct {
				Name       string `json:"name"`
				TaskID     string `json:"task_id"`
				EntryPoint string `json:"entry_point"`
				Solution   string `json:"solution"`
				IsSolved   *bool  `json:"is_solved"`
			}
			if err := json.Unmarshal([]byte(line), &r); err != nil {
				return nil, fmt.Errorf("%s line %d: %w", in.Path, i+1, err)
			}
			n, err := taskNumber(r.Name, r.TaskID)
			if err != nil {
				return nil, fmt.Errorf("%s line %d: %w", in.Path, i+1, err)
			}
			out[n] = raw{ID: id, Source: src, Code: r.Solution, Label: r.IsSolved, Entry: r.EntryPoint}
		}
	}
	return out, nil
}

// taskNumber reads Reflexion's "mbpp_234_volume_cube" or LDB's "MBPP/234".
func taskNumber(name, taskID string) (int, error) {
	s := strings.TrimPrefix(taskID, "MBPP/")
	if name != "" {
		parts := strings.SplitN(name, "_", 3)
		if len(parts) < 2 {
			return 0, fmt.Errorf("name %q is not mbpp_<number>_<entry point>", name)
		}
		s = parts[1]
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("task %q%q: no MBPP number", name, taskID)
	}
	return n, nil
}
