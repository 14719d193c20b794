package vet

// Withdraw turns a passing verdict into a neutral one that says why: the vetted tests were
// shown before this patch was written, so passing them is no longer independent evidence.
// It reports whether there was a pass to withdraw.
func (v *Verdict) Withdraw(why string) bool {
	if v.Conclusion != Success {
		return false
	}
	v.Conclusion, v.Why = Neutral, why
	return true
}
