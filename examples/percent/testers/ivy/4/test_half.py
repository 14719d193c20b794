from percent import percent


def test_a_quarter_percent():
    assert percent(1, 400) == 0.2
