package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// usage is the process's resources at one instant.
type usage struct {
	at         time.Time
	rss, hwm   int64         // VmRSS and VmHWM, bytes
	self       time.Duration // user+sys of this process
	children   time.Duration // user+sys of waited-for children: the sandboxed commands and tests
	goroutines int
	heap       uint64 // Go heap in use
}

func (u usage) cpu() time.Duration { return u.self + u.children }

func readUsage(withHeap bool) (usage, error) {
	u := usage{at: time.Now(), goroutines: runtime.NumGoroutine()}
	var err error
	if u.rss, u.hwm, err = readVm(); err != nil {
		return u, err
	}
	var self, children syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &self); err != nil {
		return u, fmt.Errorf("getrusage self: %w", err)
	}
	if err := syscall.Getrusage(syscall.RUSAGE_CHILDREN, &children); err != nil {
		return u, fmt.Errorf("getrusage children: %w", err)
	}
	u.self = tv(self.Utime) + tv(self.Stime)
	u.children = tv(children.Utime) + tv(children.Stime)
	if withHeap { // ReadMemStats stops the world: only at the sampling interval
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		u.heap = ms.HeapInuse
	}
	return u, nil
}

func tv(t syscall.Timeval) time.Duration {
	return time.Duration(t.Sec)*time.Second + time.Duration(t.Usec)*time.Microsecond
}

// readVm reads the resident set and its high-water mark from /proc/self/status.
func readVm() (rss, hwm int64, err error) {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, 0, fmt.Errorf("read RSS: %w", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		fields := bytes.Fields(sc.Bytes())
		if len(fields) < 2 {
			continue
		}
		kb, err := strconv.ParseInt(string(fields[1]), 10, 64)
		if err != nil {
			continue
		}
		switch string(fields[0]) {
		case "VmRSS:":
			rss = kb << 10
		case "VmHWM:":
			hwm = kb << 10
		}
	}
	if rss == 0 {
		return 0, 0, fmt.Errorf("read RSS: no VmRSS in /proc/self/status")
	}
	return rss, hwm, nil
}

// resetPeak clears VmHWM so that the peak is the measured phase's, not the set-up's.
// Linux ≥ 4.0; when it fails the sampled maximum still holds.
func resetPeak() error {
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		return fmt.Errorf("reset the RSS high-water mark: %w", err)
	}
	return nil
}

// sampler keeps the maxima of what it samples.
type sampler struct {
	mu                sync.Mutex
	last              usage
	maxRSS, maxHeap   int64
	maxGoroutines     int
	samples, failures int
	err               error
}

// run samples every interval until ctx ends, calling tick after each sample.
func (s *sampler) run(ctx context.Context, interval time.Duration, tick func(usage)) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		s.sample()
		if tick != nil {
			tick(s.current())
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

func (s *sampler) sample() {
	u, err := readUsage(true)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		s.failures++
		s.err = err
		return
	}
	s.samples++
	s.last = u
	s.maxRSS = max(s.maxRSS, u.rss)
	s.maxHeap = max(s.maxHeap, int64(u.heap))
	s.maxGoroutines = max(s.maxGoroutines, u.goroutines)
}

func (s *sampler) current() usage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.last
}
