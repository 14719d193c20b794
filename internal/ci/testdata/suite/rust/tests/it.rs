use calc::double;

#[test]
fn doubles_two() {
    assert_eq!(double(2), 4, "double(2)");
}

#[test]
#[ignore]
fn slow() {}
