package main

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// memory reads a process's resident set (VmRSS) and its peak (VmHWM) in bytes.
func memory(pid int) (rss, peak int64, err error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, fmt.Errorf("read memory of process %d: %w", pid, err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), ":")
		if !ok || (name != "VmRSS" && name != "VmHWM") {
			continue
		}
		kib, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(value), " kB"), 10, 64)
		if err != nil {
			return 0, 0, fmt.Errorf("parse %s of process %d: %w", name, pid, err)
		}
		if name == "VmRSS" {
			rss = kib << 10
		} else {
			peak = kib << 10
		}
	}
	return rss, peak, sc.Err()
}

func mib(b int64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }
