"""Plain helpers (not tests) for the fault-injection suite (``tests/test_fault_injection.py``): the registry of
fault scenarios, the damage each fault does to a file, and the check that an error is clear.

A scenario is a function ``scenario(tmp_path, variant)`` registered with :func:`scenario` for one input of the
inventory (:data:`llm_claims_lab.inputs.INVENTORY`) and one of its faults; it builds a good copy of the input,
damages it, asserts the outcome the inventory promises (a clear error, a rebuild, a skip with counts), and,
where the input is cached, that the repaired input gives what a clean one gives. ``variants`` lists the ways a
fault is tried (the truncation points, the wrong dimension), each a test of its own. A fault whose test needs
pytest's ``pytester`` (a whole run in a throwaway suite) is tried there instead, and recorded with :func:`held_by`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

Scenario = Callable[[Path, str], None]
SCENARIOS: dict[tuple[str, str], tuple[Scenario, tuple[str, ...]]] = {}

GIT_LFS_POINTER = (b"version https://git-lfs.github.com/spec/v1\n"
                   b"oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 12345\n")
HTML_ERROR_PAGE = b"<!DOCTYPE html>\n<html><head><title>404 Not Found</title></head><body>Not Found</body></html>\n"
TRUNCATIONS = ("one byte short", "half", "first 16 bytes")


def scenario(input_name: str, fault: str, variants: Iterable[str] = ("",)) -> Callable[[Scenario], Scenario]:
    """Register ``fn`` as the test of ``fault`` on ``input_name``, tried once per variant."""
    def register(fn: Scenario) -> Scenario:
        key = (input_name, fault)
        if key in SCENARIOS:
            raise ValueError(f"two scenarios for {key}")
        SCENARIOS[key] = (fn, tuple(variants))
        return fn
    return register


HELD_BY: dict[tuple[str, str], tuple[str, ...]] = {}  # faults tried by tests of their own: their node ids


def held_by(input_name: str, fault: str, *nodeids: str) -> None:
    """Record that ``fault`` on ``input_name`` is tried by the tests ``nodeids`` (``tests/test_x.py::test_y``,
    pytester runs that need a fixture a scenario does not get), so that it is tried once, there; the fault-injection
    suite checks that each of them is still declared."""
    key = (input_name, fault)
    if key in SCENARIOS or key in HELD_BY:
        raise ValueError(f"two scenarios for {key}")
    HELD_BY[key] = nodeids


def truncate(path: Path, how: str) -> None:
    """Cut ``path`` as an interrupted write would (``how``: one of :data:`TRUNCATIONS`)."""
    content = path.read_bytes()
    keep = {"one byte short": len(content) - 1, "half": len(content) // 2, "first 16 bytes": 16}[how]
    path.write_bytes(content[:keep])


def flip_byte(path: Path, where: str) -> None:
    """Flip the lowest bit of one byte of ``path`` (``where``: ``start``, ``middle`` or ``end``)."""
    content = bytearray(path.read_bytes())
    content[{"start": 0, "middle": len(content) // 2, "end": -1}[where]] ^= 0x01
    path.write_bytes(bytes(content))


def replace_with(path: Path, what: str) -> None:
    """Put a file of another format where ``path`` is (``what``: ``git-lfs pointer``, ``html page``, ``empty``)."""
    path.write_bytes({"git-lfs pointer": GIT_LFS_POINTER, "html page": HTML_ERROR_PAGE, "empty": b""}[what])


def assert_clear(exc: BaseException, *, names: str | Path, types: tuple[type[BaseException], ...]) -> None:
    """``exc`` is an error the user can act on: one of ``types`` (this project's errors, never a library's),
    raised without a chained library traceback, whose message is one line that names ``names`` (the file or
    directory at fault)."""
    assert isinstance(exc, types), f"{type(exc).__name__} is not one of {[t.__name__ for t in types]}: {exc}"
    assert exc.__cause__ is None and (exc.__context__ is None or exc.__suppress_context__), \
        f"a library's traceback is chained to {type(exc).__name__}: {exc.__context__!r}"
    message = str(exc)
    assert "\n" not in message.strip(), f"not one line: {message!r}"
    assert str(names) in message, f"{names} is not named in: {message}"


def leftovers(directory: Path) -> list[str]:
    """Temporary files an interrupted write could leave under ``directory`` (ours: ``.<name>.*.tmp``; pooch's:
    ``tmp*``), which no later run may trust or keep."""
    return sorted(str(p.relative_to(directory)) for p in directory.rglob("*")
                  if p.is_file() and (p.name.endswith(".tmp") or p.name.startswith("tmp")))


def variants_of(names: tuple[str, ...] | dict[str, str], ways: tuple[str, ...]) -> tuple[str, ...]:
    """Every ``name:way`` (``name`` alone for the way ``""``), as scenarios list their variants."""
    return tuple(f"{name}:{way}" if way else name for name in names for way in ways)


def damage_said(fault: str, how: str, packed: bool) -> str:
    """What the error says a file damaged by ``fault`` (done ``how``) is, an xz copy or the published bytes (a
    flipped bit in an xz copy: bad data or a failed check, both said with the hashes)."""
    return {"git-lfs pointer": "is a Git LFS pointer", "html page": "is an HTML page"}.get(how) or (
        "is an empty file" if fault == "empty" else "is not the published file" if not packed
        else {"truncated": "is a truncated xz file", "byte flip": "sha256"}[fault])
