// Package logkey holds the fixed keys of the App's structured logs, the vocabulary of
// go-githubapp: every line about a delivery, an issue or a run carries the same names,
// whichever package writes it, so one query finds them all.
package logkey

const (
	DeliveryID     = "github_delivery_id"
	Event          = "github_event"
	InstallationID = "github_installation_id"
	Repository     = "github_repository"
	Issue          = "github_issue"
)
