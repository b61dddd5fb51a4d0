"""Packaging that keeps building (issue 41): both distributions state their license as an SPDX expression with the
text in ``LICENSE`` (PEP 639; setuptools ≥ 77, before its table form stops being supported on 2027-02-18), and the
wheel and sdist each build carry the file and a ``License-Expression``. Built from copies (a build leaves ``build/``
and ``*.egg-info`` beside its sources) with this environment's setuptools, no index needed."""

from __future__ import annotations

import email.parser
import shutil
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PROJECTS = {"llm-claims": ROOT, "llm-claims-harness": ROOT / "llm_claims_harness"}
# one process per build: setuptools' build_sdist after build_wheel in one process names an sdist it does not write
BUILD = "import sys; from setuptools import build_meta as b; print(getattr(b, sys.argv[1])(sys.argv[2]))"


def test_both_pyprojects_state_an_spdx_license_with_its_file() -> None:
    for project in PROJECTS.values():
        data = tomllib.loads((project / "pyproject.toml").read_text(encoding="utf-8"))
        assert data["project"]["license"] == "MIT" and data["project"]["license-files"] == ["LICENSE"]
        assert data["build-system"]["requires"] == ["setuptools>=77"]
        assert (project / "LICENSE").read_bytes() == (ROOT / "LICENSE").read_bytes()
    assert "MIT License" in (ROOT / "LICENSE").read_text(encoding="utf-8")


@pytest.mark.parametrize("name", sorted(PROJECTS))
def test_the_wheel_and_sdist_carry_the_license(tmp_path: Path, name: str) -> None:
    source = tmp_path / "src"
    shutil.copytree(PROJECTS[name], source, ignore=shutil.ignore_patterns(
        "__pycache__", "*.egg-info", "build", "tests", ".*", "claims", "reports", "docs", "benchmarks", "calibration",
        "fixtures", "llm_claims_harness" if name == "llm-claims" else "-"))
    out = tmp_path / "dist"
    out.mkdir()
    built = []
    for hook in ("build_wheel", "build_sdist"):
        done = subprocess.run([sys.executable, "-c", BUILD, hook, str(out)], cwd=source, capture_output=True,
                              text=True)
        assert done.returncode == 0, done.stderr[-3000:]
        assert "license" not in done.stderr.lower(), done.stderr[-2000:]  # setuptools' deprecation of the table form
        built.append(done.stdout.split()[-1])
    wheel, sdist = built
    with zipfile.ZipFile(out / wheel) as whl:
        info = next(n for n in whl.namelist() if n.endswith(".dist-info/METADATA"))
        metadata = email.parser.Parser().parsestr(whl.read(info).decode("utf-8"))
        assert f"{info.rsplit('/', 1)[0]}/licenses/LICENSE" in whl.namelist()
    assert metadata["License-Expression"] == "MIT" and metadata.get_all("License-File") == ["LICENSE"]
    with tarfile.open(out / sdist) as tar:
        names = tar.getnames()
        top = names[0].split("/")[0]
        assert f"{top}/LICENSE" in names
        pkg_info = email.parser.Parser().parsestr(tar.extractfile(f"{top}/PKG-INFO").read().decode("utf-8"))
    assert pkg_info["License-Expression"] == "MIT"
