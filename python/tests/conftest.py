"""Shared fixtures: the repository root and the `bohf` binary the tests compare with."""

import os
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def bohf_binary() -> str | None:
    """The `bohf` command: $BOHF_BIN, else the workspace's target/{debug,release}/bohf, else PATH."""
    env = os.environ.get("BOHF_BIN")
    if env:
        return env
    for profile in ("debug", "release"):
        p = ROOT / "target" / profile / "bohf"
        if p.exists():
            return str(p)
    return shutil.which("bohf")


@pytest.fixture(scope="session")
def bohf_bin() -> str:
    b = bohf_binary()
    if b is None:
        pytest.fail("no `bohf` binary: build it with `cargo build -p bohf-cli` or set BOHF_BIN")
    return b


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT
