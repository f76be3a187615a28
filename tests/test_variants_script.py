"""benchmarks/variants.py: each variant plays with its own settings and the defaults for the rest."""

from __future__ import annotations

from collections.abc import Iterator
from types import ModuleType

import pytest

import demine.players.best as best
import demine.players.longterm as longterm
from tests.helpers import benchmark_script


@pytest.fixture
def variants() -> Iterator[ModuleType]:
    with benchmark_script("variants") as module:
        yield module


def test_a_variant_does_not_inherit_the_settings_of_the_one_before(variants: ModuleType) -> None:
    default_depth, default_credit = best.DEPTH, longterm.CREDIT_WEIGHT
    variants._factory(variants.VARIANTS["depth2"])()
    assert best.DEPTH == 2 != default_depth
    variants._factory(variants.VARIANTS["current"])()
    assert default_depth == best.DEPTH
    variants._factory(variants.VARIANTS["credit1"])()
    assert longterm.CREDIT_WEIGHT == 1 != default_credit
    variants._factory(variants.VARIANTS["wide"])()
    assert default_credit == longterm.CREDIT_WEIGHT
    assert variants.VARIANTS["wide"]["CANDIDATE_SHARE"] == best.CANDIDATE_SHARE
