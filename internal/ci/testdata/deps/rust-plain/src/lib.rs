//! calc has no dependencies: crates.io is not reachable from CI.

/// Doubles a number.
pub fn double(x: i64) -> i64 {
    2 * x
}
