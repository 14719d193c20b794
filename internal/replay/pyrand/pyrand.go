// Package pyrand is CPython's random.Random (MT19937) in Go, bit for bit: the same seed
// string gives the same random(), choice, sample and shuffle as Python 3.11. It exists so
// that replays can draw exactly the panels a Python script drew.
package pyrand

import (
	"crypto/sha512"
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"math/bits"
)

const (
	n         = 624
	m         = 397
	matrixA   = 0x9908b0df
	upperMask = 0x80000000
	lowerMask = 0x7fffffff
)

// Rand is one generator; it is not safe for concurrent use (nor is Python's without the GIL).
type Rand struct {
	mt  [n]uint32
	mti int
}

// NewString seeds like random.Random(s) for a str s (seed version 2): the integer
// formed by s's UTF-8 bytes followed by their SHA-512 digest, read big-endian.
func NewString(s string) *Rand {
	b := []byte(s)
	sum := sha512.Sum512(b)
	return NewInt(new(big.Int).SetBytes(append(b, sum[:]...)))
}

// NewInt seeds like random.Random(a) for an int a: init_by_array over |a|'s 32-bit
// words, least significant first ([0] for zero).
func NewInt(a *big.Int) *Rand {
	abs := new(big.Int).Abs(a)
	raw := abs.Bytes() // big-endian
	words := (len(raw) + 3) / 4
	if words == 0 {
		words = 1
	}
	padded := make([]byte, words*4)
	copy(padded[len(padded)-len(raw):], raw)
	key := make([]uint32, words)
	for i := range key {
		end := len(padded) - 4*i
		key[i] = binary.BigEndian.Uint32(padded[end-4 : end])
	}
	r := &Rand{}
	r.initByArray(key)
	return r
}

func (r *Rand) initGenrand(s uint32) {
	r.mt[0] = s
	for i := 1; i < n; i++ {
		r.mt[i] = 1812433253*(r.mt[i-1]^(r.mt[i-1]>>30)) + uint32(i)
	}
	r.mti = n
}

func (r *Rand) initByArray(key []uint32) {
	r.initGenrand(19650218)
	i, j := 1, 0
	k := max(n, len(key))
	for ; k > 0; k-- {
		r.mt[i] = (r.mt[i] ^ ((r.mt[i-1] ^ (r.mt[i-1] >> 30)) * 1664525)) + key[j] + uint32(j)
		i++
		j++
		if i >= n {
			r.mt[0] = r.mt[n-1]
			i = 1
		}
		if j >= len(key) {
			j = 0
		}
	}
	for k = n - 1; k > 0; k-- {
		r.mt[i] = (r.mt[i] ^ ((r.mt[i-1] ^ (r.mt[i-1] >> 30)) * 1566083941)) - uint32(i)
		i++
		if i >= n {
			r.mt[0] = r.mt[n-1]
			i = 1
		}
	}
	r.mt[0] = 0x80000000
}

// Uint32 is genrand_uint32: the next 32 raw bits.
func (r *Rand) Uint32() uint32 {
	if r.mti >= n {
		mag := [2]uint32{0, matrixA}
		var kk int
		for kk = 0; kk < n-m; kk++ {
			y := (r.mt[kk] & upperMask) | (r.mt[kk+1] & lowerMask)
			r.mt[kk] = r.mt[kk+m] ^ (y >> 1) ^ mag[y&1]
		}
		for ; kk < n-1; kk++ {
			y := (r.mt[kk] & upperMask) | (r.mt[kk+1] & lowerMask)
			r.mt[kk] = r.mt[kk+(m-n)] ^ (y >> 1) ^ mag[y&1]
		}
		y := (r.mt[n-1] & upperMask) | (r.mt[0] & lowerMask)
		r.mt[n-1] = r.mt[m-1] ^ (y >> 1) ^ mag[y&1]
		r.mti = 0
	}
	y := r.mt[r.mti]
	r.mti++
	y ^= y >> 11
	y ^= (y << 7) & 0x9d2c5680
	y ^= (y << 15) & 0xefc60000
	y ^= y >> 18
	return y
}

// Float64 is random(): 53 bits from two draws, in [0, 1).
func (r *Rand) Float64() float64 {
	a, b := r.Uint32()>>5, r.Uint32()>>6
	return (float64(a)*67108864.0 + float64(b)) * (1.0 / 9007199254740992.0)
}

// GetRandBits is getrandbits(k) for 0 <= k <= 64 (Python allows more; panels never need it).
// Words come least significant first, the last one shifted down to its remaining bits.
func (r *Rand) GetRandBits(k int) uint64 {
	switch {
	case k < 0 || k > 64:
		panic(fmt.Sprintf("pyrand: GetRandBits(%d) outside 0..64", k))
	case k == 0:
		return 0
	case k <= 32:
		return uint64(r.Uint32() >> (32 - k))
	}
	lo := uint64(r.Uint32())
	hi := uint64(r.Uint32() >> (64 - k))
	return hi<<32 | lo
}

// Below is _randbelow(n): rejection sampling on getrandbits(n.bit_length()). n must be > 0.
func (r *Rand) Below(n int) int {
	if n <= 0 {
		panic(fmt.Sprintf("pyrand: Below(%d)", n))
	}
	k := bits.Len(uint(n))
	v := r.GetRandBits(k)
	for v >= uint64(n) {
		v = r.GetRandBits(k)
	}
	return int(v)
}

// Choice is choice(range(n)): the index Python's choice(seq) picks for len(seq) == n.
func (r *Rand) Choice(n int) int {
	if n <= 0 {
		panic("pyrand: Choice from an empty sequence")
	}
	return r.Below(n)
}

// Sample is sample(range(n), k): the indices, in the order Python returns them. Like
// Python it uses a pool for small n and set rejection otherwise, so the draws match.
func (r *Rand) Sample(n, k int) []int {
	if k < 0 || k > n {
		panic(fmt.Sprintf("pyrand: Sample larger than population (%d of %d)", k, n))
	}
	out := make([]int, k)
	setsize := 21 // a small set's size minus an empty list's
	if k > 5 {
		setsize += int(math.Pow(4, math.Ceil(math.Log(float64(k*3))/math.Log(4))))
	}
	if n <= setsize {
		pool := make([]int, n)
		for i := range pool {
			pool[i] = i
		}
		for i := range k {
			j := r.Below(n - i)
			out[i] = pool[j]
			pool[j] = pool[n-i-1]
		}
		return out
	}
	selected := make(map[int]bool, k)
	for i := range k {
		j := r.Below(n)
		for selected[j] {
			j = r.Below(n)
		}
		selected[j] = true
		out[i] = j
	}
	return out
}

// Shuffle is shuffle(x) for a sequence of length n, with swap exchanging x[i] and x[j].
func (r *Rand) Shuffle(n int, swap func(i, j int)) {
	for i := n - 1; i > 0; i-- {
		swap(i, r.Below(i+1))
	}
}
