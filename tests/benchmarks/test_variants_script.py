"""benchmarks/variants.py: each variant is a settings value built from the defaults."""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction
from types import ModuleType

import pytest

from demine import BestSettings, PlayerSpec
from demine.errors import DemineError
from tests.helpers import benchmark_script


@pytest.fixture
def variants() -> Iterator[ModuleType]:
    with benchmark_script("variants") as module:
        yield module


def test_each_variant_is_the_defaults_with_its_own_changes(variants: ModuleType) -> None:
    assert variants.variant_spec("depth2") == PlayerSpec("best", BestSettings(depth=2))
    assert variants.variant_spec("credit1").settings.credit_weight == Fraction(1)
    # a variant named after another is still the defaults for everything it does not set
    variants.variant_spec("wide")
    assert variants.variant_spec("current") == PlayerSpec("best", BestSettings())
    assert variants.variant_spec("exact") == PlayerSpec("exact")


def test_a_variant_can_be_written_as_settings(variants: ModuleType) -> None:
    spec = variants.variant_spec("depth=2,far_off=no")
    assert spec.settings == BestSettings(depth=2, far_off=False)
    assert str(spec) == "best(depth=2, far_off=False)"
    with pytest.raises(DemineError, match="unknown variant 'nosuch'"):
        variants.variant_spec("nosuch")
    with pytest.raises(DemineError, match="depth must be 2 or 3"):
        variants.variant_spec("depth=4")
