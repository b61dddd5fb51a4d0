"""How ``pytest -n`` spreads the suite over its workers (:mod:`fixtures.trained`): the builds first, the planted-bug
runs before the short tests, and work stealing unless the user picks a ``--dist``."""

from __future__ import annotations

from pathlib import Path

import child_pytest
import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def tiny(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """Four trivial tests, with the suite's scheduling hook (and nothing else of the suite) in their conftest."""
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    monkeypatch.delenv("PYTEST_ADDOPTS", raising=False)
    pytester.makeconftest("from fixtures.trained import pytest_cmdline_main, pytest_xdist_make_scheduler  # noqa: F401\n")
    pytester.makepyfile("import pytest\n\n@pytest.mark.parametrize('i', range(4))\ndef test_one(i):\n    pass\n")
    return pytester


def scheduled(tiny: pytest.Pytester, *args: str) -> pytest.RunResult:
    """The tiny suite run on two workers, verbose (xdist then names its scheduler)."""
    result = child_pytest.runpytest(tiny, "-p", "no:cacheprovider", "-p", "no:llm_claims", "-n", "2", "-v", *args)
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()[-2000:]
    return result


@pytest.mark.parametrize(("args", "scheduler"), [
    ((), "WorkStealingScheduling"),
    (("--dist", "load"), "LoadScheduling"),
    (("--dist=loadfile",), "LoadFileScheduling"),
])
def test_n_steals_work_unless_a_dist_is_given(tiny: pytest.Pytester, args: tuple[str, ...], scheduler: str) -> None:
    scheduled(tiny, *args).stdout.fnmatch_lines([f"scheduling tests via {scheduler}"])


def test_a_dist_in_pytest_addopts_is_kept(tiny: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTEST_ADDOPTS", "--dist load")
    scheduled(tiny).stdout.fnmatch_lines(["scheduling tests via LoadScheduling"])


def test_a_dist_in_the_ini_file_is_kept(tiny: pytest.Pytester) -> None:
    tiny.makeini("[pytest]\naddopts = --dist=load\n")
    scheduled(tiny).stdout.fnmatch_lines(["scheduling tests via LoadScheduling"])


def test_a_dist_in_an_argsfile_is_kept(tiny: pytest.Pytester) -> None:
    (tiny.path / "args.txt").write_text("--dist=loadfile\n", encoding="utf-8")
    scheduled(tiny, "@args.txt").stdout.fnmatch_lines(["scheduling tests via LoadFileScheduling"])


def test_slow_tests_come_before_the_other_harness_tests() -> None:
    from fixtures.trained import pytest_collection_modifyitems

    class Item:
        def __init__(self, name: str, fixtures: tuple[str, ...] = (), marker: str | None = None) -> None:
            self.name, self.fixturenames, self.marker = name, fixtures, marker

        def get_closest_marker(self, name: str) -> object:
            return object() if name == self.marker else None

    items = [Item("fast"), Item("slow", marker="slow"), Item("lab", ("extrapolation_lab",)), Item("claim", marker="claim")]
    pytest_collection_modifyitems(items)
    assert [i.name for i in items] == ["claim", "lab", "slow", "fast"]
