// Package orchestrate runs the Dixit protocol: plain, deterministic code that grows a
// vetted test suite from testers' proposals and keeps every coder passing it. It is the
// only place where coders and testers meet, through a pass/fail matrix.
//
// Every side effect goes through a small interface (Coder, Tester, ci.Judge, Store,
// Reporter). Every paid effect (an agent's reply, a judge verdict) is written to a journal
// before the protocol moves on; a restarted run replays the journal and continues live
// where it ends, so no finished effect is paid for twice. The agents of a phase (every
// coder's solve, every tester's turn) work at once (parallel.go), and what they leave is
// taken in agent order, so nothing a reader sees depends on timing.
package orchestrate
