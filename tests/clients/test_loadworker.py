"""A load worker's specification (clients/loadworker.py)."""

from __future__ import annotations

from clients.loadworker import WorkerSpec


def test_load_spreads_seats_over_the_nodes_ports():
    one = WorkerSpec(index=0, port=2323, tables=[0, 1], seats=3)
    assert {one.port_for(t, s) for t in range(3) for s in range(3)} == {2323}
    by_table = WorkerSpec(index=0, port=1, ports=[10, 20], spread="table", tables=[0, 1], seats=3)
    assert [[by_table.port_for(t, s) for s in range(3)] for t in range(3)] == [[10] * 3, [20] * 3, [10] * 3]
    by_seat = WorkerSpec(index=0, port=1, ports=[10, 20], spread="seat", tables=[0, 1], seats=3)
    assert [[by_seat.port_for(t, s) for s in range(3)] for t in range(2)] == [[10, 20, 10], [20, 10, 20]]
    assert WorkerSpec.from_json(by_seat.to_json()) == by_seat
