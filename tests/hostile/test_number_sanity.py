"""Numbers out of range are refused by field, never an OverflowError or a ZeroDivisionError:
a model's config.json (NaN, infinity, hidden_size < num_attention_heads, rope factors) and
Kubernetes quantities (1e400, 400-digit integers)."""

from __future__ import annotations

import math

import pytest

from components.capacity.architecture import ArchitectureError, parse_config
from components.capacity.models import load_model_config
from policies.kube import as_float, as_int, as_quantity, parse_quantity

BASE = {"num_hidden_layers": 32, "hidden_size": 4096, "num_attention_heads": 32, "num_key_value_heads": 8, "vocab_size": 128256}


def test_the_base_config_parses():
    assert parse_config(BASE).head_dim == 128


@pytest.mark.parametrize(
    "change,expected",
    [
        ({"hidden_size": 16, "num_attention_heads": 32}, "config.json hidden_size = 16 is smaller than num_attention_heads = 32"),
        ({"hidden_size": float("nan")}, "config.json hidden_size = nan: must be a whole number"),
        ({"num_hidden_layers": float("inf")}, "config.json num_hidden_layers = inf: must be a whole number"),
        ({"vocab_size": 10**400}, "config.json vocab_size = <integer of 1329 bits>: must be a whole number"),
        (
            {"rope_scaling": {"rope_type": "yarn", "factor": float("nan")}},
            "config.json rope_scaling.factor = nan: must be a number in (0, 1048576]",
        ),
        ({"rope_scaling": {"rope_type": "linear", "factor": float("inf")}}, "config.json rope_scaling.factor = inf"),
        ({"rope_scaling": {"rope_type": "dynamic", "factor": 1e300}}, "config.json rope_scaling.factor = 1e+300"),
    ],
)
def test_out_of_range_architecture_numbers_name_the_field(change, expected):
    with pytest.raises(ArchitectureError) as info:
        parse_config({**BASE, **change})
    assert str(info.value).startswith(expected)
    assert len(str(info.value)) < 400


@pytest.mark.parametrize(
    "text,expected",
    [
        ('{"hidden_size": NaN}', "hidden_size = nan: not a finite number"),
        ('{"rope_scaling": {"factor": 1e400}}', "rope_scaling.factor = inf: not a finite number"),
        ("[" * 5000 + "]" * 5000, "line 1: nested deeper than 64 levels"),
    ],
)
def test_a_config_json_file_is_read_within_limits(tmp_path, text, expected):
    path = tmp_path / "config.json"
    path.write_text(text)
    with pytest.raises(ArchitectureError, match="^" + expected.replace("(", r"\(").replace("[", r"\[")):
        load_model_config(path, 10, "custom")


@pytest.mark.parametrize("value", ["1e400", "1e99999999", "-1e400", 10**400, float("inf"), float("nan"), "9" * 65])
def test_quantities_out_of_range_are_refused_fast(value):
    with pytest.raises(ValueError) as info:
        parse_quantity(value)
    assert len(str(info.value)) < 100
    assert as_quantity(value) is None


@pytest.mark.parametrize("value,expected", [("1e3", 1000.0), ("8Gi", 8 * 2**30), ("500m", 0.5), (2, 2.0), ("1E2", 100.0)])
def test_quantities_in_range(value, expected):
    assert math.isclose(parse_quantity(value), expected)


def test_numbers_too_large_for_a_float_are_not_numbers():
    assert as_float(10**400) is None and as_int(10**400) is None
    assert as_int("1e400") is None and as_int("2") == 2


@pytest.mark.parametrize(
    "value,expected",
    [("8Gi", 8 * 2**30), ("500m", 0.5), ("1e3", 1000.0), (4, 4.0), ("1.2.3", 0.0), ("9" * 65, 0.0), (10**400, 0.0), (True, 0.0)],
)
def test_the_derivations_read_quantities_with_the_packs_parser(value, expected):
    """One parser (components/quantities.py) serves the pack (policies.kube.parse_quantity) and the derivations
    (components/derive/karpenter.py quantity, which sums requests and reads 0 for what is not a quantity): "1.2.3"
    once raised out of the derivation's own float(), and "1e3" read as 0."""
    from components.derive.karpenter import quantity

    assert math.isclose(quantity(value), expected)
    assert parse_quantity is __import__("components.quantities", fromlist=["parse_quantity"]).parse_quantity


def test_a_quantity_read_again_reads_the_same_and_a_bad_one_raises_again() -> None:
    # parse_quantity keeps the texts it has read (components/quantities._PARSED); a refused text is never kept.
    class Text(str):
        pass

    assert parse_quantity("8Gi") == parse_quantity("8Gi") == parse_quantity(Text("8Gi")) == 8 * 2**30
    assert parse_quantity(" 500m ") == parse_quantity(" 500m ") == 0.5
    for _ in range(2):
        with pytest.raises(ValueError, match="not a Kubernetes quantity"):
            parse_quantity("8 GB")
