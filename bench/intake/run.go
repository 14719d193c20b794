package main

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
)

// child is the server under measure.
type child struct {
	cmd  *exec.Cmd
	addr string
}

// startChild re-runs this program with -serve and waits until the server is ready.
func startChild() (*child, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("find this program: %w", err)
	}
	cmd := exec.Command(exe, "-serve")
	cmd.Stderr = os.Stderr
	if _, err := cmd.StdinPipe(); err != nil { // closed when we exit: the child stops then
		return nil, fmt.Errorf("child stdin: %w", err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("child stdout: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start server child: %w", err)
	}
	c := &child{cmd: cmd}
	line, err := bufio.NewReader(out).ReadString('\n')
	addr, ok := strings.CutPrefix(strings.TrimSpace(line), "listening ")
	if err != nil || !ok {
		c.stop()
		return nil, fmt.Errorf("server child did not say where it listens (got %q): %v", line, err)
	}
	c.addr = addr
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		resp, err := http.Get("http://" + addr + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return c, nil
			}
		}
		if time.Now().After(deadline) {
			c.stop()
			return nil, fmt.Errorf("server child at %s not ready after 30 s", addr)
		}
	}
}

func (c *child) stop() {
	_ = c.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = c.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(40 * time.Second):
		_ = c.cmd.Process.Kill()
		<-done
	}
}

// rssBound is what the server's memory must stay under, however many bodies arrive.
const rssBound = 256 << 20

// stillSending stands for the posts the end of the run cut short.
const stillSending = -1

// tally counts the server's answers.
type tally struct {
	mu       sync.Mutex
	statuses map[int]int
	busyIn   []time.Duration // how fast each 503 came
	sent     int64
	pings    map[int]int // answers to the signed deliveries sent during the flood
}

func (t *tally) add(a attempt) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.statuses[a.status]++
	t.sent += a.sent
	if a.status == http.StatusServiceUnavailable {
		t.busyIn = append(t.busyIn, a.answeredIn)
	}
}

func run(o options) error {
	c, err := startChild()
	if err != nil {
		return err
	}
	defer c.stop()
	pid := c.cmd.Process.Pid
	base, _, err := memory(pid)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), o.duration)
	defer cancel()
	t := &tally{statuses: map[int]int{}, pings: map[int]int{}}
	var wg sync.WaitGroup
	begin := time.Now()
	for i := range o.conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; ctx.Err() == nil; n++ {
				a := post(ctx, c.addr, i*1_000_000+n, o.size, o.rate)
				if ctx.Err() != nil && a.status == 0 {
					a.status = stillSending // cut by the end of the run, not by the server
				}
				t.add(a)
				wait := max(a.retryAfter, 100*time.Millisecond)
				select {
				case <-ctx.Done():
				case <-time.After(wait):
				}
			}
		}()
	}
	wg.Add(1)
	go func() { // GitHub, meanwhile, four deliveries a second
		defer wg.Done()
		client := &http.Client{Timeout: 15 * time.Second}
		for n := 0; ctx.Err() == nil; n++ {
			code := ping(ctx, client, c.addr, n)
			if ctx.Err() == nil {
				t.mu.Lock()
				t.pings[code]++
				t.mu.Unlock()
			}
			select {
			case <-ctx.Done():
			case <-time.After(250 * time.Millisecond):
			}
		}
	}()
	peak, killedAt := sample(ctx, cancel, pid, o.limit, begin)
	wg.Wait()
	_, hwm, _ := memory(pid)
	peak = max(peak, hwm)
	report(o, t, base, peak, killedAt)
	if peak > rssBound {
		return fmt.Errorf("the server's peak RSS, %s, is above the %s bound", mib(peak), mib(rssBound))
	}
	return nil
}

// sample polls the child's RSS until ctx ends, and kills the child when it passes limit.
func sample(ctx context.Context, cancel context.CancelFunc, pid int, limit int64, begin time.Time) (peak int64, killedAt time.Duration) {
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return peak, killedAt
		case <-tick.C:
		}
		rss, hwm, err := memory(pid)
		if err != nil {
			return peak, killedAt
		}
		peak = max(peak, rss, hwm)
		if rss > limit {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			cancel()
			return peak, time.Since(begin)
		}
	}
}

func report(o options, t *tally, base, peak int64, killedAt time.Duration) {
	fmt.Printf("intake: %d connections, each posting %s bodies with a wrong signature at %d KiB/s, for %s\n",
		o.conns, mib(o.size), o.rate>>10, o.duration)
	fmt.Printf("server RSS: %s at rest, peak %s (limit for this run %s)\n", mib(base), mib(peak), mib(o.limit))
	if killedAt > 0 {
		fmt.Printf("server KILLED after %.1f s: its RSS passed the limit\n", killedAt.Seconds())
	}
	fmt.Printf("answers: %s\n", answers(t.statuses))
	fmt.Printf("signed deliveries sent meanwhile: %s\n", answers(t.pings))
	fmt.Printf("body bytes sent: %s\n", mib(t.sent))
	if len(t.busyIn) > 0 {
		slices.Sort(t.busyIn)
		fmt.Printf("503 answered in: p50 %s, max %s\n", t.busyIn[len(t.busyIn)/2].Round(time.Millisecond), t.busyIn[len(t.busyIn)-1].Round(time.Millisecond))
	}
}

// answers lists how many requests got each status.
func answers(statuses map[int]int) string {
	var out []string
	for code, n := range statuses {
		name := fmt.Sprintf("%d %s", code, http.StatusText(code))
		switch code {
		case 0:
			name = "no answer"
		case stillSending:
			name = "still sending at the end"
		}
		out = append(out, fmt.Sprintf("%d × %s", n, name))
	}
	slices.Sort(out)
	return strings.Join(out, ", ")
}
