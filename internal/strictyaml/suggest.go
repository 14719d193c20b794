package strictyaml

import "strings"

// Suggest returns the name in known that typed most likely misspells: one or two edits
// away (fewer for short names), ignoring case. It returns "" when nothing is that close.
func Suggest(typed string, known []string) string {
	best, bestDist := "", -1
	typed = strings.ToLower(typed)
	for _, k := range known {
		d := distance(typed, k)
		if d <= max(1, min(3, len([]rune(k))/3)) && (bestDist < 0 || d < bestDist) {
			best, bestDist = k, d
		}
	}
	return best
}

// distance counts the insertions, deletions, substitutions and swaps of neighbours that
// turn a into b (optimal string alignment), so "timeuot" is one slip from "timeout".
func distance(a, b string) int {
	s, t := []rune(a), []rune(b)
	prev2, prev, cur := make([]int, len(t)+1), make([]int, len(t)+1), make([]int, len(t)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(s); i++ {
		cur[0] = i
		for j := 1; j <= len(t); j++ {
			cost := 1
			if s[i-1] == t[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && s[i-1] == t[j-2] && s[i-2] == t[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(t)]
}
