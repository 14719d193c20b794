// Package webhook receives GitHub webhook deliveries: it verifies their
// signature, dedupes them by delivery id, makes each one durable on disk and
// answers at once, then runs the Handler registered for the event on a bounded
// worker pool.
//
// Until its signature is checked a body is never held in memory: it streams through the
// HMAC into an unlinked temporary file in QueueDir, within a budget of bodies and bytes
// (Config.MaxUnverified, MaxUnverifiedBytes), a size bound and a minimum rate. A request
// that does not fit the budget is answered 503 at once.
//
// It knows nothing of Dixit's protocol. A delivery's life on disk:
//
//	QueueDir/<id>.json         accepted, not yet processed (re-run after a crash)
//	QueueDir/done/<id>.json    processed (or failed permanently); kept for dedupe
//	QueueDir/failed/<id>.json  a retryable error outlived its retries
//
// Delivery is at least once: a delivery that was running when the process died
// runs again on the next Start, so handlers must be idempotent.
package webhook
