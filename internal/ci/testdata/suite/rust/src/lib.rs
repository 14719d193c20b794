//! calc: a crate with unit tests beside its code and integration tests in tests/.

/// Doubles a number.
pub fn double(x: i64) -> i64 {
    2 * x
}

#[cfg(test)]
mod tests {
    #[test]
    fn doubles() {
        assert_eq!(super::double(4), 8);
    }
}
