package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/dixit-bot/dixit/internal/webhook"
)

// attempt is what one connection's post came to.
type attempt struct {
	status     int           // the server's answer; 0 when none came
	answeredIn time.Duration // from the first byte sent to the answer
	retryAfter time.Duration
	sent       int64 // body bytes written
}

// chunk is the body's repeating content: the server never gets to parse it.
var chunk = bytes.Repeat([]byte("a"), 16<<10)

// post sends one delivery of size bytes at rate bytes/s with a well-formed signature that
// does not match, and returns when the server answers, the connection ends, or ctx does.
func post(ctx context.Context, addr string, id int, size, rate int64) attempt {
	var a attempt
	conn, err := (&net.Dialer{Timeout: 5 * time.Second}).DialContext(ctx, "tcp", addr)
	if err != nil {
		return a
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { _ = conn.Close() })
	defer stop()
	answer := make(chan *http.Response, 1)
	go func() {
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			resp = nil
		}
		answer <- resp
	}()
	start := time.Now()
	if _, err := fmt.Fprintf(conn, "POST /webhook HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\n"+
		"Content-Length: %d\r\nX-GitHub-Event: issues\r\nX-GitHub-Delivery: bench-%d\r\nX-Hub-Signature-256: sha256=%s\r\n\r\n",
		addr, size, id, strings.Repeat("0", 64)); err != nil {
		return a
	}
	var resp *http.Response
	for a.sent < size && resp == nil {
		next := start.Add(time.Duration(a.sent * int64(time.Second) / rate))
		select {
		case resp = <-answer:
			continue
		case <-ctx.Done():
			return a
		case <-time.After(time.Until(next)):
		}
		n, err := conn.Write(chunk[:min(int64(len(chunk)), size-a.sent)])
		a.sent += int64(n)
		if err != nil {
			break // cut by the server: its answer, if any, is on the way
		}
	}
	if resp == nil {
		select {
		case resp = <-answer:
		case <-time.After(2 * time.Minute):
		case <-ctx.Done():
		}
	}
	if resp == nil {
		return a
	}
	a.status, a.answeredIn = resp.StatusCode, time.Since(start)
	if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil {
		a.retryAfter = time.Duration(s) * time.Second
	}
	return a
}

// ping posts a delivery signed as GitHub signs it, small as most of GitHub's are, and
// returns the server's answer (0 when there was none).
func ping(ctx context.Context, client *http.Client, addr string, id int) int {
	body := []byte(`{"zen":"Keep it logically awesome.","hook_id":1}`)
	req, err := webhook.SignedRequest("http://"+addr+"/webhook", []byte(benchSecret), "ping", fmt.Sprintf("ping-%d", id), body)
	if err != nil {
		return 0
	}
	resp, err := client.Do(req.WithContext(ctx))
	if err != nil {
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}
