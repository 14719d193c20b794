# Outside testpaths: the base's pytest settings leave it out of the suite.
def test_outside():
    raise AssertionError("collected against the base's testpaths")
