package tamperscan

import "strings"

// archive splits a txtar-like file (the hostile fixtures of internal/ci) into its
// "-- name --" sections; the header before the first is dropped.
func archive(data string) map[string]string {
	sections := map[string]string{}
	name := ""
	for _, line := range strings.SplitAfter(data, "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "-- ") && strings.HasSuffix(trimmed, " --") && len(trimmed) > 6 {
			name = strings.TrimSuffix(strings.TrimPrefix(trimmed, "-- "), " --")
			sections[name] = ""
			continue
		}
		if name != "" {
			sections[name] += line
		}
	}
	return sections
}
