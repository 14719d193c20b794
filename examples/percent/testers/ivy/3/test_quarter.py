from percent import percent


def test_a_quarter():
    assert percent(1, 4) == 25.0
    assert percent(3, 4) == 75.0
