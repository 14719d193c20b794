package rules

// Aim is issue 31's target for `bot vet`'s gate: catch at least Caught of the unresolved
// patches while failing at most ResolvedFailed of the resolved ones.
type Aim struct {
	Caught         float64 `json:"caught"`
	ResolvedFailed float64 `json:"resolved_failed"`
}

// IssueAim is issue 31's: 80 % caught, 10 % failed.
var IssueAim = Aim{Caught: 0.8, ResolvedFailed: 0.1}

// GateCheck is one rule's gate on one corpus and panel size, against the aim.
type GateCheck struct {
	Corpus         string  `json:"corpus"`
	Kind           string  `json:"panel_kind"`
	K              int     `json:"k"`
	Rule           Rule    `json:"rule"`
	Caught         Est     `json:"unresolved_caught"`
	ResolvedFailed Est     `json:"resolved_failed"`
	NoVerdict      Est     `json:"no_verdict"`
	Meets          bool    `json:"meets"`     // the figures do
	Surely         bool    `json:"surely"`    // the far ends of their intervals do
	Shortfall      float64 `json:"shortfall"` // points missing: caught below the aim plus failed above it
}

// GateChecks checks every candidate rule of every report's band-"all" rows.
func GateChecks(reports []*Report, aim Aim) []GateCheck {
	var out []GateCheck
	for _, rep := range reports {
		for _, row := range rep.Rows {
			if row.Band != Bands[0] {
				continue
			}
			for _, f := range row.Rules {
				if f.Rule == Oracle || !f.Caught.Defined() || !f.ResolvedFailed.Defined() {
					continue
				}
				out = append(out, gateCheck(rep, row.K, f, aim))
			}
		}
	}
	return out
}

func gateCheck(rep *Report, k int, f RuleFigures, aim Aim) GateCheck {
	c, r := f.Caught, f.ResolvedFailed
	return GateCheck{Corpus: rep.Corpus, Kind: rep.Kind, K: k, Rule: f.Rule, Caught: c, ResolvedFailed: r, NoVerdict: f.NoVerdict,
		Meets:     c.Value >= aim.Caught && r.Value <= aim.ResolvedFailed,
		Surely:    c.Lo >= aim.Caught && r.Hi <= aim.ResolvedFailed,
		Shortfall: max(0, aim.Caught-c.Value) + max(0, r.Value-aim.ResolvedFailed),
	}
}

// Alternatives are the picks issue 31 sets against each other: the Dixit pick, the hybrid,
// CodeT's dual agreement, Agentless' majority, "passes every LLM test" and a random pick.
var Alternatives = []string{PickConsensus(Seed), PickHybrid(Seed), PickCodeT, PickMajority, PickMaxPass, PickRandom}

// PickCheck is the best pick on one corpus and panel size, and how it stands against each
// alternative (the oracle is a reference, not a candidate).
type PickCheck struct {
	Corpus string         `json:"corpus"`
	Kind   string         `json:"panel_kind"`
	K      int            `json:"k"`
	Best   string         `json:"best"`
	Value  Est            `json:"correct"`
	Over   map[string]Est `json:"minus"` // best − alternative, paired on the same panels and resamples
	// Same are the alternatives that pick exactly as the best does on every panel (the
	// hybrid of the threshold rule is the seed rule's: unanimous tests filter no one).
	Same   []string `json:"same,omitempty"`
	Surely bool     `json:"beats_all"` // every other difference's interval lies above 0
}

// PickChecks finds the best pick of every report's band-"all" rows (not twice for a
// corpus measured again with fewer held-out coders: its picks are the same).
func PickChecks(reports []*Report) []PickCheck {
	var out []PickCheck
	for _, rep := range reports {
		if rep.SomeHeldOut {
			continue
		}
		for i := range rep.Rows {
			row := &rep.Rows[i]
			if row.Band != Bands[0] {
				continue
			}
			out = append(out, pickCheck(rep, row))
		}
	}
	return out
}

func pickCheck(rep *Report, row *Row) PickCheck {
	pc := PickCheck{Corpus: rep.Corpus, Kind: rep.Kind, K: row.K, Over: map[string]Est{}, Surely: true}
	best := -1.0
	for _, p := range row.Picks {
		if p.Pick != PickOracle && p.Correct.Value > best {
			best, pc.Best, pc.Value = p.Correct.Value, p.Pick, p.Correct
		}
	}
	for _, alt := range Alternatives {
		if alt == pc.Best {
			continue
		}
		d, ok := row.PickDiff(pc.Best, alt)
		if !ok {
			continue
		}
		if d.Value == 0 && d.Lo == 0 && d.Hi == 0 {
			pc.Same = append(pc.Same, alt)
			continue
		}
		pc.Over[alt] = d
		pc.Surely = pc.Surely && d.Lo > 0
	}
	return pc
}
