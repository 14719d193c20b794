// Package swesympy reads the swe-sympy pass matrices (one JSON file per instance: real
// agent patches × real LLM-written test patches, with the base and the gold patch as
// controls) into rules.Instances. It reads hostile input: every error names the file and
// the field, and nothing missing is taken as a zero.
package swesympy

import "encoding/json"

// The cells of a row: a test's verdict on one tree. "env" is the environment's failure,
// never a test result.
const (
	cellPass = "pass"
	cellFail = "fail"
	cellEnv  = "env"
)

// Formats are the matrix formats this reader knows (the writer's swebench.FormatVersion).
// Their fields are the same: version 2 adds env.pytest_addopts (plain asserts; env is not
// read here), version 3 changes only the time limits a test runs under (a test stopped at
// its limit fails, as before).
var Formats = []string{"swe-matrix/1", "swe-matrix/2", "swe-matrix/3"}

// Format is the newest of Formats, what a new matrix carries.
const Format = "swe-matrix/3"

// wireMatrix is one instance's file. Pointers mark the fields that must be present.
type wireMatrix struct {
	InstanceID   *string              `json:"instance_id"`
	Version      *string              `json:"version"`
	Env          json.RawMessage      `json:"env"`
	Coders       *[]wireCoder         `json:"coders"`
	Tests        *[]wireTest          `json:"tests"`
	Rows         *map[string][]string `json:"rows"`
	EnvCells     *[]wireEnvCell       `json:"env_cells"`
	LabelCheck   *wireLabelCheck      `json:"label_check"`
	LabelEnv     *[]wireEnvCell       `json:"label_env"` // label tests the environment kept from an answer, per tree
	Notes        []string             `json:"notes"`
	Sessions     int                  `json:"sessions"`
	InputsSHA256 string               `json:"inputs_sha256"`
	Format       *string              `json:"format"`
}

// wireLabelCheck is how the controls of the labels came out: every FAIL_TO_PASS test
// fails on the base, every label test passes on the gold patch.
type wireLabelCheck struct {
	F2PFailOnBase   *bool    `json:"f2p_fail_on_base"`
	GoldPasses      *bool    `json:"gold_passes"`
	F2PPassOnBase   []string `json:"f2p_passing_on_base"`
	P2PFailOnBase   []string `json:"p2p_not_passing_on_base"`
	GoldFailures    []string `json:"gold_not_passing"`
	NamesNotFound   []string `json:"names_not_found"`
	Goldcheck       string   `json:"goldcheck"`
	CodersResolved  int      `json:"coders_resolved"`
	Published       int      `json:"published_labels"`
	PublishedAgree  int      `json:"published_labels_agree"`
	PublishedDisagr []string `json:"published_disagreements"`
}

type wireCoder struct {
	Name               *string         `json:"name"`
	Source             *string         `json:"source"`
	ResolvedOnlySource *bool           `json:"resolved_only_source"`
	DuplicateOf        string          `json:"duplicate_of"`
	PatchSHA256        *string         `json:"patch_sha256"`
	Applies            *bool           `json:"applies"`
	Resolved           *bool           `json:"resolved"` // null: the label could not be computed
	PublishedLabel     string          `json:"published_label"`
	LabelFailures      json.RawMessage `json:"label_failures"`
	ApplyError         string          `json:"apply_error"`
}

type wireTest struct {
	Name        *string  `json:"name"`
	Source      *string  `json:"source"`
	Model       string   `json:"model"`
	Functions   []string `json:"functions"`
	DuplicateOf string   `json:"duplicate_of"`
	Runnable    *bool    `json:"runnable"`
	Reason      string   `json:"reason"`
}

type wireEnvCell struct {
	Tree   string `json:"tree"`
	Test   string `json:"test"`
	Reason string `json:"reason"`
}
