package calc

import (
	"fmt"
	"testing"
)

func TestAddLoudly(t *testing.T) {
	for i := 0; ; i++ {
		fmt.Printf("%d + 1 = %d, and some padding to make the lines long ..........................\n", i, Add(i, 1))
	}
}
