import pytest

from percent import percent


def test_zero_whole_is_an_error():
    with pytest.raises(ZeroDivisionError):
        percent(1, 0)
