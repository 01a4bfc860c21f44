"""The order the tests are handed out in under `worksteal` (`tests/support/order.py`)."""

from __future__ import annotations

from pathlib import Path

from tests.support.order import LONGEST, shares, worksteal_order

CHECKOUT = Path(__file__).resolve().parents[1]


def test_the_longest_files_named_are_there() -> None:
    assert [name for name in LONGEST if not (CHECKOUT / name).is_file()] == []


def test_the_shares_are_split_as_worksteal_splits_them() -> None:
    assert shares(10, 4) == [2, 2, 3, 3]
    assert shares(4655, 4) == [1163, 1164, 1164, 1164]
    assert sum(shares(4655, 3)) == 4655


def test_each_share_begins_with_long_files_and_every_test_is_kept_once() -> None:
    long_files = sorted(LONGEST, key=lambda name: -LONGEST[name])[:5]
    items = [f"tests/a/test_{n}.py::t{i}" for n in range(40) for i in range(10)]
    items[100:100] = [f"{name}::t{i}" for name in long_files for i in range(3)]
    items.insert(250, "tests/serial.py::alone")
    ordered = worksteal_order(items, 4, path=lambda item: item.split("::")[0], serial=lambda item: "alone" in item)
    assert sorted(ordered) == sorted(items)
    assert ordered[0] == "tests/serial.py::alone"
    starts, seen = [], 0
    for size in shares(len(items), 4):
        starts.append(ordered[seen : seen + size])
        seen += size
    assert starts[1][0].startswith(long_files[0]) and starts[2][0].startswith(long_files[1])
    assert starts[0][1].split("::")[0] in long_files  # after the serial test
    heads = {item.split("::")[0] for share in starts for item in share[:3]}
    assert heads >= set(long_files[:3])
    for name in long_files:  # a file stays together, in its own order
        at = [index for index, item in enumerate(ordered) if item.startswith(name)]
        assert at == list(range(at[0], at[0] + 3)) and [ordered[i] for i in at] == [f"{name}::t{i}" for i in range(3)]
