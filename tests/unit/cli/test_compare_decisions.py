"""``shoal compare decisions``'s pure parts: the seeded generator, the classes of
interchangeable gangs, the manifests both sides get, the determined decisions and their diff,
and the report's verdict."""

from __future__ import annotations

import argparse
from collections import Counter

import msgspec
import pytest

from services.cli.decisions import command, kueue, volcano
from services.cli.decisions.examples import kueue_examples, volcano_examples
from services.cli.decisions.generating import FAMILIES, volcano_scenario
from services.cli.decisions.kueue import kueue_scenario
from services.cli.decisions.outcome import (
    Difference,
    GangOutcome,
    Outcome,
    WorkloadOutcome,
    decisions,
    diff,
)
from services.cli.decisions.report import compare, render
from services.cli.decisions.scenario import Gang, Node, Queue, Scenario, classes
from services.cli.main import main


def _scenario(*gangs: Gang, nodes: tuple[Node, ...] = (Node(name="n0", cpu=4),)) -> Scenario:
    return Scenario(
        name="t-1",
        peer="volcano",
        source="test",
        conf="",
        nodes=nodes,
        queues=(Queue(name="q0"),),
        gangs=gangs,
    )


def _gang(name: str, *, arrival: float = 0.0, replicas: int = 2, cpu_m: int = 1000) -> Gang:
    return Gang(
        name=name,
        queue="q0",
        replicas=replicas,
        min_member=replicas,
        cpu_m=cpu_m,
        arrival=arrival,
    )


def _outcome(side: str, **gangs: GangOutcome) -> Outcome:
    return Outcome(scenario="t-1", side=side, gangs=dict(gangs))


def test_a_seed_gives_the_same_scenario_every_time_and_seeds_differ() -> None:
    assert volcano_scenario(17) == volcano_scenario(17)
    assert msgspec.json.encode(volcano_scenario(17)) == msgspec.json.encode(volcano_scenario(17))
    assert volcano_scenario(17) != volcano_scenario(18)
    assert volcano_scenario(17).name == "v-17" and volcano_scenario(17).seed == 17


def test_the_first_hundred_seeds_draw_every_family() -> None:
    drawn = Counter(volcano_scenario(seed).kind for seed in range(100))
    assert set(drawn) == set(FAMILIES), drawn
    assert min(drawn.values()) >= 10, drawn


@pytest.mark.parametrize("seed", range(0, 100, 7))
def test_generated_gangs_arrive_as_one_shape_per_instant(seed: int) -> None:
    """What makes the scenario determined: gangs created at one instant are interchangeable,
    or each stands alone (a class of one)."""
    scenario = volcano_scenario(seed)
    by_arrival: dict[float, set[tuple[object, ...]]] = {}
    for gang in scenario.gangs:
        by_arrival.setdefault(gang.arrival, set()).add(gang.shape())
    if scenario.kind in ("waves", "completions"):
        assert all(len(shapes) == 1 for shapes in by_arrival.values()), by_arrival
    assert all(g.min_member <= g.replicas for g in scenario.gangs)
    queues = {q.name for q in scenario.queues}
    assert {g.queue for g in scenario.gangs} <= queues


def test_classes_group_gangs_of_one_shape_and_arrival() -> None:
    a, b = _gang("a"), _gang("b")
    later, other = _gang("c", arrival=2.0), _gang("d", cpu_m=500)
    assert classes([later, b, a, other]) == {"a": [a, b], "d": [other], "c": [later]}


def test_manifests_name_what_no_webhook_defaults() -> None:
    gang = Gang(
        name="g", queue="q0", replicas=3, min_member=2, cpu_m=500, priority="high", duration=1.5
    )
    scenario = _scenario(gang)
    group = volcano.podgroup(scenario, gang)
    assert group["spec"] == {
        "minMember": 2,
        "queue": "t-1-q0",
        "minResources": {"cpu": "1000m", "memory": "512Mi"},
        "priorityClassName": "decisions-high",
    }
    pods = volcano.pods(scenario, gang)
    assert [p["metadata"]["name"] for p in pods] == ["g-0", "g-1", "g-2"]
    pod = pods[0]
    assert pod["spec"]["schedulerName"] == "volcano"
    assert pod["metadata"]["annotations"][volcano.GROUP_ANNOTATION] == "g"
    assert pod["metadata"]["annotations"]["sim.shoal.io/duration"] == "1500ms"
    assert pod["spec"]["containers"][0]["resources"]["requests"] == {
        "cpu": "500m",
        "memory": "256Mi",
    }
    assert volcano.nodes(scenario)[0]["metadata"]["name"] == "t-1-n0"


def test_arrivals_create_each_podgroup_before_its_pods_in_time_order() -> None:
    scenario = _scenario(_gang("b", arrival=2.0), _gang("a"))
    arrivals = volcano.arrivals(scenario)
    assert [at for at, _ in arrivals] == [0.0, 2.0]
    assert [(o["kind"], o["metadata"]["name"]) for o in arrivals[0][1]] == [
        ("PodGroup", "a"),
        ("Pod", "a-0"),
        ("Pod", "a-1"),
    ]


def test_interchangeable_gangs_compare_by_counts_not_by_which() -> None:
    scenario = _scenario(_gang("a"), _gang("b"))
    ran = GangOutcome(bound={"x-0": "t-1-n0", "x-1": "t-1-n0"}, phases=["Inqueue", "Running"])
    waited = GangOutcome(phases=["Pending"])
    peer = _outcome("volcano", a=ran, b=waited)
    shoal = _outcome("shoal", a=waited, b=ran)
    assert diff(scenario, peer, shoal) == []
    assert decisions(scenario, peer)["class a (x2) ran"] == 1


@pytest.mark.parametrize(
    ("shoal_a", "expected"),
    [
        (
            GangOutcome(phases=["Pending"]),
            [
                Difference(decision="gang a ran", peer=True, shoal=False),
                Difference(decision="gang a admitted", peer=True, shoal=False),
                Difference(decision="gang a reached Running", peer=True, shoal=False),
                Difference(decision="gang a pods bound", peer=2, shoal=0),
                Difference(decision="gang a nodes", peer={"t-1-n0": 2}, shoal={}),
            ],
        ),
        (
            GangOutcome(bound={"a-0": "t-1-n0"}, phases=["Inqueue"]),
            [
                Difference(decision="gang a ran", peer=True, shoal=False),
                Difference(decision="gang a reached Running", peer=True, shoal=False),
                Difference(decision="gang a pods bound", peer=2, shoal=1),
                Difference(decision="gang a nodes", peer={"t-1-n0": 2}, shoal={"t-1-n0": 1}),
                Difference(decision="gang a bound in part", peer=None, shoal="1/2"),
            ],
        ),
        (
            GangOutcome(
                bound={"a-0": "t-1-n0", "a-1": "t-1-n0"},
                evicted=["a-1"],
                phases=["Inqueue", "Running"],
            ),
            [Difference(decision="gang a pods evicted", peer=0, shoal=1)],
        ),
    ],
    ids=["not-run", "bound-in-part", "evicted"],
)
def test_a_gang_alone_compares_by_identity(
    shoal_a: GangOutcome, expected: list[Difference]
) -> None:
    scenario = _scenario(_gang("a"))
    peer = _outcome(
        "volcano",
        a=GangOutcome(bound={"a-0": "t-1-n0", "a-1": "t-1-n0"}, phases=["Inqueue", "Running"]),
    )
    assert diff(scenario, peer, _outcome("shoal", a=shoal_a)) == expected


def test_nodes_are_compared_only_for_a_single_candidate() -> None:
    two = (Node(name="n0", cpu=4), Node(name="n1", cpu=4))
    scenario = _scenario(_gang("a"), nodes=two)
    peer = _outcome("volcano", a=GangOutcome(bound={"a-0": "t-1-n0", "a-1": "t-1-n0"}))
    shoal = _outcome("shoal", a=GangOutcome(bound={"a-0": "t-1-n0", "a-1": "t-1-n1"}))
    assert diff(scenario, peer, shoal) == []
    only = (Node(name="n0", cpu=1), Node(name="n1", cpu=4))
    scenario = _scenario(_gang("a", cpu_m=2000), nodes=only)
    shoal = _outcome("shoal", a=GangOutcome(bound={"a-0": "t-1-n1", "a-1": "t-1-n1"}))
    assert [d.decision for d in diff(scenario, peer, shoal)] == ["gang a nodes"]


def test_report_counts_agreement_and_sets_apart_what_did_not_run() -> None:
    scenario = _scenario(_gang("a"))
    ran = GangOutcome(bound={"a-0": "t-1-n0", "a-1": "t-1-n0"}, phases=["Running"])
    same = compare("volcano", [scenario], [_outcome("volcano", a=ran)], [_outcome("shoal", a=ran)])
    assert same.agreement == 1.0 and same.passed
    other = compare(
        "volcano",
        [scenario],
        [_outcome("volcano", a=ran)],
        [_outcome("shoal", a=GangOutcome())],
    )
    assert other.agreement == 0.0 and not other.passed
    assert "gang a ran: True / False" in render(other)
    failed = Outcome(scenario="t-1", side="shoal", gangs={}, error="TimeoutError: nodes")
    broken = compare("volcano", [scenario], [_outcome("volcano", a=ran)], [failed])
    assert broken.rows[0].errors == ["shoal: TimeoutError: nodes"]
    assert broken.rows[0].differences == [] and not broken.passed
    assert "1 not compared" in render(broken)


# --- Kueue ----------------------------------------------------------------------------------


def test_a_kueue_seed_gives_the_same_scenario_and_every_family_is_drawn() -> None:
    assert kueue_scenario(5) == kueue_scenario(5) and kueue_scenario(5) != kueue_scenario(6)
    drawn = Counter(kueue_scenario(seed).kind for seed in range(100))
    assert set(drawn) == set(kueue.FAMILIES), drawn


def test_kueue_manifests_name_the_queue_and_the_prefixed_flavors() -> None:
    scenario = kueue_scenario(3)
    objects = kueue.setup(scenario)
    kinds = [o["kind"] for o in objects]
    assert kinds[0] == "Namespace" and kinds.count("ClusterQueue") == len(scenario.queues)
    queue = next(o for o in objects if o["kind"] == "ClusterQueue")
    flavor = queue["spec"]["resourceGroups"][0]["flavors"][0]["name"]
    assert flavor.startswith(f"{scenario.name}-")
    assert queue["spec"]["cohort"] == f"{scenario.name}-co"
    job = kueue.job(scenario, scenario.jobs[0])
    assert job["metadata"]["labels"][kueue.QUEUE_LABEL] == scenario.jobs[0].queue
    assert job["spec"]["suspend"] is True


def test_kueue_decisions_count_interchangeable_jobs_and_their_flavors() -> None:
    jobs = tuple(kueue.Job(name=f"j{i}", queue="cq0", parallelism=1, cpu_m=1000) for i in range(3))
    scenario = kueue.KueueScenario(
        name="k-t",
        source="test",
        flavors=("f0", "f1"),
        queues=(kueue.ClusterQueue(name="cq0", quotas=(kueue.Quota(flavor="f0", cpu=2),)),),
        jobs=jobs,
    )
    on_f0 = WorkloadOutcome(admitted=True, flavor="f0")
    peer = Outcome(scenario="k-t", side="kueue", jobs={"j0": on_f0, "j1": on_f0})
    shoal = Outcome(scenario="k-t", side="shoal", jobs={"j1": on_f0, "j2": on_f0})
    assert diff(scenario, peer, shoal) == []
    on_f1 = WorkloadOutcome(admitted=True, flavor="f1", evicted=1, preempted=1)
    other = Outcome(scenario="k-t", side="shoal", jobs={"j1": on_f0, "j2": on_f1})
    assert diff(scenario, peer, other) == [
        Difference(decision="class j0 (x3) flavors", peer={"f0": 2}, shoal={"f0": 1, "f1": 1}),
        Difference(decision="class j0 (x3) evicted", peer=0, shoal=1),
        Difference(decision="class j0 (x3) preempted", peer=0, shoal=1),
    ]


def test_only_rigid_gangs_arrive_in_several_copies() -> None:
    """Elastic copies created together split the room by cycle timing, upstream too."""
    for seed in range(200):
        for members in classes(volcano_scenario(seed).gangs).values():
            if len(members) > 1 and volcano_scenario(seed).kind in ("waves", "completions"):
                assert all(g.min_member == g.replicas for g in members), seed


def test_examples_arrive_one_shape_per_instant() -> None:
    for scenario in volcano_examples():
        arrivals = [g.arrival for g in scenario.gangs]
        assert len(set(arrivals)) == len(arrivals), scenario.name
    for example in kueue_examples():
        assert len({j.shape() for j in example.jobs}) == 1, example.name


def test_the_command_selects_its_corpus_and_refuses_a_bad_count() -> None:
    parser = argparse.ArgumentParser()
    command.add_arguments(parser)
    one = command.scenarios("volcano", parser.parse_args(["--seed", "7", "--corpus", "all"]))
    assert one == [volcano_scenario(7)]
    both = command.scenarios("kueue", parser.parse_args(["--count", "3", "--corpus", "all"]))
    assert both[:3] == [kueue_scenario(seed) for seed in range(3)]
    assert both[3:] == kueue_examples()
    assert main(["compare", "decisions", "--count", "0"]) == 2
