// SPDX-License-Identifier: GPL-2.0
// rustrecurse: a CPU-bound Rust program for sframe-gorust.  main recurses
// DEPTH levels and spins, then calls C (rustffi.c) which recurses and calls
// back into Rust, which recurses and spins again, for SECONDS seconds.
use std::ptr::read_volatile;
use std::time::{Duration, Instant};

const DEPTH: u32 = 12;
const SPINS: u64 = 200_000;

extern "C" {
    fn c_through(depth: u32, callback: extern "C" fn(u32) -> u64) -> u64;
}

static mut SINK: u64 = 0;

#[no_mangle]
#[inline(never)]
fn rust_leaf(n: u64) -> u64 {
    let mut acc = 0u64;
    for i in 0..n {
        acc = acc.wrapping_add(i ^ unsafe { read_volatile(&SINK) });
    }
    unsafe { SINK = acc };
    acc
}

// The volatile read after each call keeps it a real call, not a loop or a
// jump.
#[no_mangle]
#[inline(never)]
fn rust_recurse(n: u32) -> u64 {
    let below = if n == 0 {
        rust_leaf(SPINS)
    } else {
        rust_recurse(n - 1)
    };
    below.wrapping_add(unsafe { read_volatile(&n) } as u64)
}

#[no_mangle]
#[inline(never)]
pub extern "C" fn rust_callback(n: u32) -> u64 {
    rust_recurse(n).wrapping_add(1)
}

fn main() {
    let seconds: f64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(2.0);
    let end = Instant::now() + Duration::from_secs_f64(seconds);
    let (mut total, mut calls) = (0u64, 0u64);
    while Instant::now() < end {
        total = total.wrapping_add(if calls % 2 == 0 {
            rust_recurse(DEPTH)
        } else {
            unsafe { c_through(DEPTH / 2, rust_callback) }
        });
        calls += 1;
    }
    println!("rustrecurse: {} calls, {}", calls, total & 1);
}
