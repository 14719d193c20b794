#[test]
fn coders_own_test() {
    panic!("a coder's own integration test must be excluded");
}
