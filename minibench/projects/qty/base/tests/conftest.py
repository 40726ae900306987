import pytest

from qty import UnitRegistry


@pytest.fixture
def registry():
    """A fresh registry, so tests that define units do not leak into each other."""
    return UnitRegistry()
