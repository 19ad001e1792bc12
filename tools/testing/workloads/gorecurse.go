// SPDX-License-Identifier: GPL-2.0
// gorecurse: a CPU-bound Go program for sframe-gorust.  The main goroutine
// recurses DEPTH levels, then either spins in Go or calls through cgo into
// C built without frame pointers (c_spin -> c_leaf), for SECONDS seconds.
package main

/*
#cgo CFLAGS: -O2 -fomit-frame-pointer
#include <stdint.h>

static volatile uint64_t c_sink;

__attribute__((noinline)) static uint64_t c_leaf(uint64_t n)
{
	uint64_t i;

	for (i = 0; i < n; i++)
		c_sink += i;
	return c_sink;
}

__attribute__((noinline)) uint64_t c_spin(uint64_t n)
{
	return c_leaf(n) + 1;
}
*/
import "C"

import (
	"fmt"
	"os"
	"strconv"
	"time"
)

const (
	depth = 12
	spins = 200000
)

var sink uint64

//go:noinline
func goLeaf(n uint64) uint64 {
	for i := uint64(0); i < n; i++ {
		sink += i ^ (sink >> 3)
	}
	return sink
}

//go:noinline
func recurse(n int, viaC bool) uint64 {
	if n == 0 {
		if viaC {
			return uint64(C.c_spin(C.uint64_t(spins)))
		}
		return goLeaf(spins)
	}
	return recurse(n-1, viaC) + uint64(n)
}

func main() {
	seconds := 2.0
	if len(os.Args) > 1 {
		if s, err := strconv.ParseFloat(os.Args[1], 64); err == nil {
			seconds = s
		}
	}
	end := time.Now().Add(time.Duration(seconds * float64(time.Second)))
	var total uint64
	calls := 0
	for time.Now().Before(end) {
		total += recurse(depth, calls%2 == 1)
		calls++
	}
	fmt.Printf("gorecurse: %d calls, %d\n", calls, total&1)
}
