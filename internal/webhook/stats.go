package webhook

import (
	"fmt"
	"io"
	"sync/atomic"
)

// Stats is a snapshot of the server's counters since New. Each counter is
// monotonic, so they map onto Prometheus counters (see WritePrometheus).
type Stats struct {
	Accepted          uint64 // deliveries made durable and answered 202
	Duplicate         uint64 // deliveries whose id was already accepted
	RejectedSignature uint64 // requests refused for a missing or bad signature
	RejectedBusy      uint64 // requests refused (503) because MaxUnverified bodies were arriving
	RejectedTooLarge  uint64 // requests refused for a body over MaxBody
	RejectedSlow      uint64 // requests cut off for a body slower than MinBodyRate or BodyTimeout
	Processed         uint64 // deliveries whose handlers all succeeded
	Failed            uint64 // deliveries that ended with a handler error
	Panics            uint64 // handler panics recovered
}

// counters are the live counterparts of Stats.
type counters struct {
	accepted, duplicate, rejectedSignature       atomic.Uint64
	rejectedBusy, rejectedTooLarge, rejectedSlow atomic.Uint64
	processed, failed, panics                    atomic.Uint64
}

func (c *counters) snapshot() Stats {
	return Stats{
		Accepted:          c.accepted.Load(),
		Duplicate:         c.duplicate.Load(),
		RejectedSignature: c.rejectedSignature.Load(),
		RejectedBusy:      c.rejectedBusy.Load(),
		RejectedTooLarge:  c.rejectedTooLarge.Load(),
		RejectedSlow:      c.rejectedSlow.Load(),
		Processed:         c.processed.Load(),
		Failed:            c.failed.Load(),
		Panics:            c.panics.Load(),
	}
}

// WritePrometheus writes the counters in the Prometheus text exposition format,
// named dixit_webhook_<counter>_total.
func (s Stats) WritePrometheus(w io.Writer) error {
	for _, m := range []struct {
		name, help string
		v          uint64
	}{
		{"accepted", "Deliveries made durable and accepted.", s.Accepted},
		{"duplicate", "Deliveries ignored as already accepted.", s.Duplicate},
		{"rejected_signature", "Requests refused for a missing or bad signature.", s.RejectedSignature},
		{"rejected_busy", "Requests refused because too many bodies were arriving unverified.", s.RejectedBusy},
		{"rejected_too_large", "Requests refused for a body over the size bound.", s.RejectedTooLarge},
		{"rejected_slow", "Requests cut off for a body that arrived too slowly.", s.RejectedSlow},
		{"processed", "Deliveries whose handlers all succeeded.", s.Processed},
		{"failed", "Deliveries that ended with a handler error.", s.Failed},
		{"panics", "Handler panics recovered.", s.Panics},
	} {
		name := "dixit_webhook_" + m.name + "_total"
		if _, err := fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s counter\n%s %d\n", name, m.help, name, name, m.v); err != nil {
			return fmt.Errorf("write metric %s: %w", name, err)
		}
	}
	return nil
}
