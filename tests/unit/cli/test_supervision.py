"""``shoal up`` supervises: back-off per child, restarts reported, ``--no-demo`` stays up."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from services.cli.main import build_parser
from services.cli.supervise import RestartPolicy, Supervisor
from services.cli.up import stays_up


@pytest.mark.parametrize(
    ("failures", "delay"), [(1, 1.0), (2, 2.0), (3, 4.0), (6, 30.0), (20, 30.0)], ids=str
)
def test_back_off_doubles_up_to_the_cap(failures: int, delay: float) -> None:
    assert RestartPolicy(base=1.0, cap=30.0).delay(failures) == delay


class FakeStack:
    def __init__(self) -> None:
        self.alive = {"broker": True, "binder": True}
        self.respawned: list[str] = []

    def children(self) -> Iterator[tuple[str, bool, int | None]]:
        for name, alive in self.alive.items():
            yield name, alive, None if alive else 1

    def respawn(self, name: str) -> None:
        self.respawned.append(name)
        self.alive[name] = True


def test_dead_child_is_restarted_after_its_back_off_and_reported() -> None:
    now = [0.0]
    stack, lines = FakeStack(), list[str]()
    supervisor = Supervisor(
        stack,  # type: ignore[arg-type]
        report=lines.append,
        policy=RestartPolicy(base=1.0, cap=8.0, stable_after=60.0),
        clock=lambda: now[0],
    )
    supervisor.check()
    stack.alive["binder"] = False  # crash 1
    supervisor.check()
    assert stack.respawned == [] and "binder exited with code 1; restarting in 1s" in lines[-1]
    now[0] = 1.0
    supervisor.check()
    assert stack.respawned == ["binder"] and lines[-1] == "binder restarted"
    stack.alive["binder"] = False  # crash 2, soon after: a longer wait
    now[0] = 2.0
    supervisor.check()
    now[0] = 3.5
    supervisor.check()
    assert stack.respawned == ["binder"], "the second restart waits 2s"
    now[0] = 4.0
    supervisor.check()
    assert stack.respawned == ["binder", "binder"]
    assert supervisor.restarts == {"binder": 2}
    now[0] = 100.0  # stable for a minute: the next crash starts from the base delay again
    supervisor.check()
    stack.alive["binder"] = False
    supervisor.check()
    assert "restarting in 1s" in lines[-1]


@pytest.mark.parametrize(
    ("argv", "terminal", "stays"),
    [
        (["up", "--no-demo"], False, True),
        (["up"], False, False),
        (["up"], True, True),
        (["up", "--no-demo", "--no-stay"], False, False),
        (["up", "--stay"], False, True),
    ],
    ids=[
        "no-demo-without-terminal",
        "demo-without-terminal",
        "demo-on-terminal",
        "no-stay",
        "stay",
    ],
)
def test_no_demo_implies_staying_up(argv: list[str], terminal: bool, stays: bool) -> None:
    args = build_parser().parse_args(argv)
    assert stays_up(args, terminal=terminal) is stays
