// Package browsertest shows a page as a user's browser would: headless Chromium, with
// the fonts the machine has, takes a screenshot the test can read pixel by pixel.
// Tests only.
package browsertest

import (
	"context"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// RequireEnv makes a missing Chromium fail the test rather than skip it; CI sets it
// after installing Debian's chromium.
const RequireEnv = "DIXIT_REQUIRE_CHROMIUM"

// Screenshot renders the HTML file at page in headless Chromium at the given width and
// height in CSS pixels, and returns the picture. Without Chromium the test is skipped,
// or fails when RequireEnv is set.
func Screenshot(t *testing.T, page string, width, height int) image.Image {
	t.Helper()
	bin := ""
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			bin = p
			break
		}
	}
	if bin == "" {
		if os.Getenv(RequireEnv) != "" {
			t.Fatalf("%s is set but no chromium is on PATH (apt-get install chromium)", RequireEnv)
		}
		t.Skip("no chromium on PATH: the report is not checked as a browser shows it")
	}
	abs, err := filepath.Abs(page)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "shot.png")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	// The flags keep a headless browser from reaching for the network this machine does
	// not have (updates, sync, QUIC) and from needing a user namespace as root.
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
		"--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--hide-scrollbars", "--user-data-dir="+t.TempDir(), "--screenshot="+out,
		"--window-size="+strconv.Itoa(width)+","+strconv.Itoa(height), "file://"+abs)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("chromium could not take the screenshot: %v\n%s", err, b)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatalf("chromium wrote no screenshot: %v", err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("the screenshot is not a PNG: %v", err)
	}
	return img
}

// Count returns how many pixels of img are within tolerance (per channel, 0–255) of
// the colour r, g, b.
func Count(img image.Image, r, g, b uint8, tolerance int) int {
	n := 0
	bounds := img.Bounds()
	for y := bounds.Min.Y; y < bounds.Max.Y; y++ {
		for x := bounds.Min.X; x < bounds.Max.X; x++ {
			pr, pg, pb, _ := img.At(x, y).RGBA()
			if near(pr>>8, r, tolerance) && near(pg>>8, g, tolerance) && near(pb>>8, b, tolerance) {
				n++
			}
		}
	}
	return n
}

func near(v uint32, want uint8, tolerance int) bool {
	d := int(v) - int(want)
	return d >= -tolerance && d <= tolerance
}
