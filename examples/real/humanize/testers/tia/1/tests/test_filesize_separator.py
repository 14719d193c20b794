"""naturalsize's separator goes between the number and every unit."""

from __future__ import annotations

import humanize


def test_separator_goes_between_number_and_unit() -> None:
    nnbsp = "\u202f"
    assert humanize.naturalsize(3000000, separator=nnbsp) == "3.0\u202fMB"
    assert humanize.naturalsize(3000, binary=True, separator=nnbsp) == "2.9\u202fKiB"
    assert humanize.naturalsize(300, separator=nnbsp) == "300\u202fBytes"
    assert humanize.naturalsize(1, separator="") == "1Byte"
