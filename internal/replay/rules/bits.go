package rules

import "math/bits"

// set is a set of tests as bits: the vet looks at every held-out coder for every panel
// and rule, so "fails a kept test" should be a few word operations.
type set []uint64

func newSet(n int) set { return make(set, (n+63)/64) }

func (s set) add(i int)      { s[i/64] |= 1 << (i % 64) }
func (s set) has(i int) bool { return s[i/64]&(1<<(i%64)) != 0 }
func (s set) clone() set     { return append(set(nil), s...) }
func (s set) andNot(o set) {
	for i := range s {
		s[i] &^= o[i]
	}
}
func (s set) meets(o set) bool {
	for i, w := range s {
		if w&o[i] != 0 {
			return true
		}
	}
	return false
}

func (s set) count() int {
	n := 0
	for _, w := range s {
		n += bits.OnesCount64(w)
	}
	return n
}

// countAnd is |s ∩ o|.
func (s set) countAnd(o set) int {
	n := 0
	for i, w := range s {
		n += bits.OnesCount64(w & o[i])
	}
	return n
}

func (s set) equalWithin(o, within set) bool {
	for i, w := range s {
		if (w^o[i])&within[i] != 0 {
			return false
		}
	}
	return true
}

// prepared is an instance's matrix as sets, built once for all its panels.
type prepared struct {
	in                  *Instance
	all                 set   // every test
	pass, fail, env     []set // per coder
	goldKnown, goldPass set
	baseKnown, baseFail set
	heldOut             []bool // per coder: counted by the vet figures when outside the panel
}

func prepare(in *Instance, heldOut func(Coder) bool) *prepared {
	n := len(in.Tests)
	p := &prepared{in: in, all: newSet(n), goldKnown: newSet(n), goldPass: newSet(n), baseKnown: newSet(n), baseFail: newSet(n)}
	for _, c := range in.Coders {
		p.heldOut = append(p.heldOut, heldOut == nil || heldOut(c))
	}
	for t, test := range in.Tests {
		p.all.add(t)
		if test.Gold != Env {
			p.goldKnown.add(t)
		}
		if test.Gold == Pass {
			p.goldPass.add(t)
		}
		if test.Base != Env {
			p.baseKnown.add(t)
		}
		if test.Base == Fail {
			p.baseFail.add(t)
		}
	}
	for _, row := range in.Cells {
		ps, fs, es := newSet(n), newSet(n), newSet(n)
		for t, v := range row {
			switch v {
			case Pass:
				ps.add(t)
			case Fail:
				fs.add(t)
			default:
				es.add(t)
			}
		}
		p.pass, p.fail, p.env = append(p.pass, ps), append(p.fail, fs), append(p.env, es)
	}
	return p
}
