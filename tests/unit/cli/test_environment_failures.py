"""Every CLI verb meets a broken environment with exit code 2 and one line, never a traceback:
no kubeconfig, a bad one, an API server or a Kafka broker that cannot be reached."""

from __future__ import annotations

from pathlib import Path

import pytest

from services.cli.main import main

EXAMPLES = str(Path(__file__).resolve().parents[3] / "deploy" / "examples")
UNREACHABLE_KUBECONFIG = """apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "http://127.0.0.1:1"}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
users: [{name: u, user: {token: x}}]
current-context: c
"""


@pytest.fixture
def kubeconfigs(tmp_path: Path) -> dict[str, str]:
    (tmp_path / "unreachable").write_text(UNREACHABLE_KUBECONFIG)
    (tmp_path / "bad").write_text("garbage: [\n")
    return {
        "missing": str(tmp_path / "missing"),
        "unreachable": str(tmp_path / "unreachable"),
        "bad": str(tmp_path / "bad"),
    }


CASES = [
    (["submit", "-f", EXAMPLES, "--kubeconfig", "{missing}"], "kubeconfig {missing}: no such file"),
    (["submit", "-f", EXAMPLES, "--kubeconfig", "{bad}"], "cannot load a kubeconfig"),
    (["submit", "-f", EXAMPLES, "--kubeconfig", "{unreachable}"], "cannot reach the API server"),
    (["submit", "-f", EXAMPLES], "no kubeconfig: set --kubeconfig or KUBECONFIG"),
    (["run", "watcher", "--kubeconfig", "{bad}"], "cannot load a kubeconfig"),
    (["run", "binder", "--kubeconfig", "{unreachable}"], "cannot reach Kafka"),
    (["replay", "--bootstrap", "127.0.0.1:1", "--last"], "127.0.0.1:1"),
]


@pytest.mark.parametrize(
    ("argv", "message"),
    CASES,
    ids=[
        "submit-missing-kubeconfig",
        "submit-bad-kubeconfig",
        "submit-unreachable-server",
        "submit-no-kubeconfig-at-all",
        "run-watcher-bad-kubeconfig",
        "run-binder-unreachable-broker",
        "replay-unreachable-broker",
    ],
)
def test_broken_environment_is_exit_2_and_one_line(
    argv: list[str],
    message: str,
    kubeconfigs: dict[str, str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))  # no ~/.kube/config
    monkeypatch.delenv("KUBECONFIG", raising=False)
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)
    monkeypatch.setenv("KAFKA_BOOTSTRAP", "127.0.0.1:1")
    monkeypatch.setenv("SHOAL_HTTP_PORT", "0")
    code = main([arg.format(**kubeconfigs) for arg in argv])
    err = capsys.readouterr().err.strip()
    assert code == 2, err
    assert len(err.splitlines()) == 1, err
    assert err.startswith("shoal: ") and message.format(**kubeconfigs) in err
