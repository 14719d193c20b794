from percent import percent


def test_thirds_keep_two_decimals():
    assert percent(1, 3) == 33.33
