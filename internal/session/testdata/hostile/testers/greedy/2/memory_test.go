package calc

import "testing"

var keep [][]byte

func TestAddLots(t *testing.T) {
	for {
		b := make([]byte, 64<<20)
		for i := range b {
			b[i] = byte(Add(i, 1))
		}
		keep = append(keep, b)
	}
}
