"""Shared test fixtures.

The seed documents (others' copyrighted papers) are not in the repo: tests that read
them find them through ZMODEL_SEEDS (default ../shared/seeds relative to the repo
root) and skip, saying why, where they are absent.
"""
import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def seeds_dir() -> Path:
    return Path(os.environ.get("ZMODEL_SEEDS", REPO.parent / "shared" / "seeds"))


@pytest.fixture(scope="session")
def seeds() -> Path:
    d = seeds_dir()
    if not d.is_dir() or not any(d.glob("*.txt")):
        pytest.skip(f"seed documents not found in {d} (set ZMODEL_SEEDS to the folder holding them)")
    return d


# CI runs a fixed, reproducible set of Hypothesis examples (a landing must not hinge on a
# random draw); developers' runs stay randomised and find new cases.
from hypothesis import HealthCheck, settings  # noqa: E402

settings.register_profile("ci", derandomize=True, suppress_health_check=[HealthCheck.too_slow])
if os.environ.get("CI"):
    settings.load_profile("ci")
