"""Callers that name binary and format get what they always got."""

from __future__ import annotations

import humanize


def test_named_arguments_keep_their_meaning() -> None:
    assert humanize.naturalsize(3000, binary=True) == "2.9 KiB"
    assert humanize.naturalsize(3141592, format="%.2f") == "3.14 MB"
    assert humanize.naturalsize(value=10**6) == "1.0 MB"
