// Command intake measures what unauthenticated webhook bodies cost the server: it starts
// `bot serve`'s real server (server.New and Run, the same http.Server) in a child process,
// opens many connections that each post a body with a well-formed but wrong signature,
// slowly, and samples the child's resident memory from /proc while they do.
//
//	go run ./bench/intake [-conns 200] [-mib 24] [-kibps 1024] [-duration 60s] [-limit-mib 2048]
//
// A connection that is answered before its body is sent (503 when the intake is full)
// waits as Retry-After asks and tries again, so the pressure lasts the whole run. The
// child is killed when its memory passes -limit-mib: the run then reports the bound as
// broken rather than taking the machine down.
package main

import (
	"flag"
	"fmt"
	"os"
	"time"
)

type options struct {
	conns    int
	size     int64 // body bytes
	rate     int64 // bytes per second per connection
	duration time.Duration
	limit    int64 // RSS bytes above which the child is killed
}

func main() {
	var o options
	var kibps, limitMiB int64
	var mib float64
	serve := flag.Bool("serve", false, "run as the server child (used by the bench itself)")
	flag.IntVar(&o.conns, "conns", 200, "concurrent connections")
	flag.Float64Var(&mib, "mib", 24, "body size in MiB")
	flag.Int64Var(&kibps, "kibps", 1024, "upload rate of each connection in KiB/s")
	flag.DurationVar(&o.duration, "duration", 60*time.Second, "how long the connections keep posting")
	flag.Int64Var(&limitMiB, "limit-mib", 2048, "kill the server when its RSS passes this many MiB")
	flag.Parse()
	o.size, o.rate, o.limit = int64(mib*(1<<20)), kibps<<10, limitMiB<<20
	var err error
	if *serve {
		err = serveChild()
	} else {
		err = run(o)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "intake:", err)
		os.Exit(1)
	}
}
