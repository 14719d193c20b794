from percent import percent


def test_nothing_to_show():
    assert percent(3, 0) == 0.0
