"""``shoal up``'s kubesim data directory: fresh per run, kept across a kubesim crash."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from services.cli.up import add_arguments, kubesim_data_dir
from shared.errors import UserError


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    return parser.parse_args(list(argv))


def leftover(data_dir: Path) -> Path:
    data_dir.mkdir(parents=True)
    journal = data_dir / "journal.jsonl"
    journal.write_text('{"op": "put"}\n')
    return journal


def test_default_is_under_the_workdir_and_starts_empty(tmp_path: Path) -> None:
    journal = leftover(tmp_path / "kubesim")
    assert kubesim_data_dir(parse("--workdir", str(tmp_path))) == tmp_path / "kubesim"
    assert not journal.exists()


def test_keep_data_keeps_an_earlier_runs_objects(tmp_path: Path) -> None:
    journal = leftover(tmp_path / "elsewhere")
    args = parse(
        "--workdir", str(tmp_path), "--data-dir", str(tmp_path / "elsewhere"), "--keep-data"
    )
    assert kubesim_data_dir(args) == tmp_path / "elsewhere"
    assert journal.read_text() == '{"op": "put"}\n'


def test_a_real_cluster_has_no_kubesim_data(tmp_path: Path) -> None:
    journal = leftover(tmp_path / "kubesim")
    args = parse("--workdir", str(tmp_path), "--kubeconfig", str(tmp_path / "config"))
    assert kubesim_data_dir(args) is None
    assert journal.exists()  # nothing is wiped for a cluster Shoal does not simulate


def test_a_file_in_the_way_is_a_user_error(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    with pytest.raises(UserError, match="not a directory"):
        kubesim_data_dir(parse("--data-dir", str(tmp_path / "file")))
