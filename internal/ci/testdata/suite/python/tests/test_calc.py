from calc import add, sub


def test_add():
    assert add(2, 3) == 5


def test_sub():
    assert sub(5, 3) == 2, "sub(5, 3) should be 2"


class TestPair:
    def test_both(self):
        assert (add(1, 1), sub(1, 1)) == (2, 0)
