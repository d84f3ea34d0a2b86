"""Traffic profiles: what a stack is asked to serve in a simulation (`python -m stacks simulate`).

A profile is a YAML (or JSON) file; its schema is ``traffic_profile.schema.json`` beside this
module (generated from the pydantic models below; a test keeps the two equal). Per model of the
stack it gives the arrival process (Poisson at a base rate with spikes, or a replayed CSV trace),
the prompt and output token distributions, the share of streamed requests and the share sent to
the model's long-context sibling. Errors name the field path and the rule (ConfigError), never a
traceback. docs/simulate.md documents the schema with examples.
"""

from __future__ import annotations

import csv
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal, Optional, Union

from pydantic import BaseModel, ConfigDict, Field, Strict, ValidationError, field_validator, model_validator
from pydantic.alias_generators import to_camel

from ..errors import ConfigError, Problem, format_path

Int = Annotated[int, Strict()]
Number = Union[Annotated[int, Strict()], Annotated[float, Strict()]]
Str = Annotated[str, Strict()]

# Longest simulated span, and the largest trace file read (bounded input).
MAX_DURATION_SECONDS = 7 * 24 * 3600
MAX_TRACE_ROWS = 2_000_000
MAX_TRACE_BYTES = 128 << 20
_DURATION = re.compile(r"^(\d+(?:\.\d+)?)(s|m|h)?$")
_UNIT = {"s": 1, "m": 60, "h": 3600, None: 1}


def parse_duration(value: Any) -> float:
    """Seconds from a number of seconds or a string such as ``"90s"``, ``"15m"``, ``"1h"``."""
    if isinstance(value, bool):
        raise ValueError("must be seconds (a number) or a duration such as 90s, 15m, 1h")
    if isinstance(value, (int, float)):
        seconds = float(value)
    elif isinstance(value, str) and (match := _DURATION.match(value.strip())):
        number, unit = match.groups()
        seconds = float(number) * _UNIT[unit]
    else:
        raise ValueError("must be seconds (a number) or a duration such as 90s, 15m, 1h")
    if not (0 < seconds <= MAX_DURATION_SECONDS) or not math.isfinite(seconds):
        raise ValueError(f"must be above 0 and at most {MAX_DURATION_SECONDS} s (7 days)")
    return seconds


Duration = Annotated[Union[Str, Number], Field(description="Seconds, or a string such as 90s, 15m, 1h.")]


class _Model(BaseModel):
    model_config = ConfigDict(
        extra="forbid", frozen=True, alias_generator=to_camel, validate_by_name=False, validate_by_alias=True
    )


class Constant(_Model):
    """Every request has the same number of tokens."""

    kind: Literal["constant"] = Field(description="constant")
    value: Int = Field(gt=0, description="Tokens (required, > 0).")


class Uniform(_Model):
    """Tokens drawn uniformly from [min, max] (integers)."""

    kind: Literal["uniform"] = Field(description="uniform")
    min: Int = Field(gt=0, description="Fewest tokens (required, > 0).")
    max: Int = Field(gt=0, description="Most tokens (required, >= min).")

    @model_validator(mode="after")
    def _order(self) -> "Uniform":
        if self.max < self.min:
            raise ValueError("max must be at least min")
        return self


class LogNormal(_Model):
    """Tokens drawn from a log-normal distribution (the usual shape of chat prompts and answers), clipped to [min, max]."""

    kind: Literal["lognormal"] = Field(description="lognormal")
    median: Number = Field(gt=0, description="Median tokens (required, > 0).")
    sigma: Number = Field(ge=0, le=4, description="Standard deviation of ln(tokens) (required, 0-4).")
    min: Int = Field(default=1, gt=0, description="Clip below. Default 1.")
    max: Optional[Int] = Field(default=None, gt=0, description="Clip above. Default: the model's maxModelLen.")


class Empirical(_Model):
    """Tokens drawn from listed values with weights (e.g. a histogram of production logs)."""

    kind: Literal["empirical"] = Field(description="empirical")
    values: tuple[Int, ...] = Field(min_length=1, max_length=100_000, description="Token counts (required, each > 0).")
    weights: Optional[tuple[Number, ...]] = Field(default=None, description="Relative weights, one per value. Default: equal.")

    @field_validator("values")
    @classmethod
    def _positive(cls, v: tuple[int, ...]) -> tuple[int, ...]:
        if any(x <= 0 for x in v):
            raise ValueError("every value must be > 0")
        return v

    @model_validator(mode="after")
    def _weights(self) -> "Empirical":
        if self.weights is not None:
            if len(self.weights) != len(self.values):
                raise ValueError(f"weights has {len(self.weights)} entries, values {len(self.values)}: one weight per value")
            if any(w < 0 or not math.isfinite(w) for w in self.weights) or sum(self.weights) <= 0:
                raise ValueError("weights must be >= 0 and not all 0")
        return self


Distribution = Annotated[Union[Constant, Uniform, LogNormal, Empirical], Field(discriminator="kind")]


class Spike(_Model):
    """The rate multiplied by ``factor`` for ``duration``, reached over ``ramp`` (linear up and down); a factor below 1 is a lull."""

    at: Duration = Field(description="When the ramp up starts, from the start of the run (required).")
    factor: Number = Field(gt=0, le=1000, description="Multiplier of the base rate at the peak (required); below 1 a lull.")
    duration: Duration = Field(description="How long the peak lasts (required).")
    ramp: Duration = Field(default=0, description="Seconds to reach the peak, and to come back down. Default 0 (a step).")

    @field_validator("at", "ramp")
    @classmethod
    def _offset(cls, v: Any) -> Any:
        if v in (0, 0.0, "0", "0s"):
            return 0
        parse_duration(v)
        return v

    @field_validator("duration")
    @classmethod
    def _span(cls, v: Any) -> Any:
        parse_duration(v)
        return v

    def seconds(self) -> tuple[float, float, float]:
        """(start, peak duration, ramp) in seconds."""
        at = 0.0 if self.at == 0 else parse_duration(self.at)
        ramp = 0.0 if self.ramp == 0 else parse_duration(self.ramp)
        return at, parse_duration(self.duration), ramp


class Arrivals(_Model):
    """How requests arrive: Poisson at ``rate`` (with ``spikes``), or the timestamps of a CSV ``trace``."""

    rate: Optional[Number] = Field(
        default=None, gt=0, le=100_000, description="Base Poisson rate, requests per second. Required without trace."
    )
    spikes: tuple[Spike, ...] = Field(default=(), max_length=100, description="Spikes on top of the base rate. Default none.")
    trace: Optional[Str] = Field(
        default=None,
        description="CSV file (relative to the profile) with columns timestampSeconds, promptTokens, outputTokens and optionally "
        "streamed (true/false) and longContext (true/false); replayed as is. Exclusive with rate and spikes.",
    )

    @model_validator(mode="after")
    def _one(self) -> "Arrivals":
        if self.trace is None and self.rate is None:
            raise ValueError("set rate (Poisson) or trace (CSV)")
        if self.trace is not None and (self.rate is not None or self.spikes):
            raise ValueError("trace replays the file's own timestamps: it excludes rate and spikes")
        return self

    def rate_at(self, t: float) -> float:
        """The Poisson rate at ``t`` seconds: the base rate times the largest spike and the deepest lull active then."""
        up, down = 1.0, 1.0
        for spike in self.spikes:
            at, span, ramp = spike.seconds()
            if t < at or t >= at + 2 * ramp + span:
                continue
            if t < at + ramp:
                f = 1 + (spike.factor - 1) * (t - at) / ramp
            elif t < at + ramp + span:
                f = float(spike.factor)
            else:
                f = 1 + (spike.factor - 1) * (at + 2 * ramp + span - t) / ramp
            if spike.factor >= 1:
                up = max(up, f)
            else:
                down = min(down, f)
        return float(self.rate or 0) * up * down

    def peak_rate(self) -> float:
        """The highest rate the profile reaches."""
        return float(self.rate or 0) * max([1.0, *(float(s.factor) for s in self.spikes)])


class LongContext(_Model):
    """Requests sent with the header ``x-llm-context: long`` to the model's ``<name>-long`` sibling."""

    share: Number = Field(ge=0, le=1, description="Share of requests sent to the sibling (required, 0-1).")
    prompt_tokens: Optional[Distribution] = Field(
        default=None, description="Their prompt tokens. Default: the model's promptTokens."
    )


class ModelTraffic(_Model):
    """The traffic one model of the stack receives."""

    arrivals: Arrivals = Field(description="Arrival process (required).")
    prompt_tokens: Optional[Distribution] = Field(default=None, description="Prompt tokens per request. Required without trace.")
    output_tokens: Optional[Distribution] = Field(default=None, description="Output tokens per request. Required without trace.")
    streamed_share: Number = Field(default=1.0, ge=0, le=1, description="Share of requests streamed (SSE). Default 1.0.")
    long_context: Optional[LongContext] = Field(default=None, description="Share sent to the long-context sibling. Default none.")

    @model_validator(mode="after")
    def _tokens(self) -> "ModelTraffic":
        if self.arrivals.trace is None:
            missing = [n for n, v in (("promptTokens", self.prompt_tokens), ("outputTokens", self.output_tokens)) if v is None]
            if missing:
                raise ValueError(f"{' and '.join(missing)} required with a Poisson rate (a trace carries its own tokens)")
        return self


class TrafficProfile(_Model):
    """A traffic profile: per model of the stack, its traffic; an optional default duration."""

    duration: Optional[Duration] = Field(
        default=None, description="Simulated span. Default 1h (the CLI's --duration overrides it)."
    )
    models: dict[Str, ModelTraffic] = Field(
        min_length=1, max_length=200, description="Model name (as in the stack) -> its traffic (required)."
    )
    description: Optional[Str] = Field(default=None, max_length=2000, description="Free text. Default none.")

    @field_validator("duration")
    @classmethod
    def _duration(cls, v: Any) -> Any:
        if v is not None:
            parse_duration(v)
        return v


@dataclass(frozen=True)
class TraceRow:
    """One replayed request."""

    t: float
    prompt: int
    output: int
    streamed: Optional[bool]
    long: bool


TRACE_COLUMNS = ("timestampSeconds", "promptTokens", "outputTokens")
TRACE_OPTIONAL = ("streamed", "longContext")


def read_trace(path: Path, field: str) -> tuple[TraceRow, ...]:
    """The rows of a trace CSV, sorted by time; ConfigError naming ``field`` and the row on any bad cell."""
    try:
        if path.stat().st_size > MAX_TRACE_BYTES:
            raise ConfigError([Problem(field, f"the trace is larger than {MAX_TRACE_BYTES >> 20} MiB", str(path))])
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError([Problem(field, f"cannot be read: {exc.strerror}", str(path))]) from None
    except UnicodeDecodeError:
        raise ConfigError([Problem(field, "is not UTF-8 text", str(path))]) from None
    reader = csv.DictReader(text.splitlines())
    header = reader.fieldnames or []
    missing = [c for c in TRACE_COLUMNS if c not in header]
    unknown = [c for c in header if c not in TRACE_COLUMNS + TRACE_OPTIONAL]
    if missing or unknown:
        rule = f"missing columns {', '.join(missing)}" if missing else f"unknown columns {', '.join(unknown)}"
        raise ConfigError(
            [
                Problem(
                    field,
                    f"{rule}; the columns are {', '.join(TRACE_COLUMNS)} (required), {', '.join(TRACE_OPTIONAL)} (optional)",
                    str(path),
                )
            ]
        )
    rows: list[TraceRow] = []
    for number, row in enumerate(reader, start=2):
        if len(rows) >= MAX_TRACE_ROWS:
            raise ConfigError([Problem(field, f"more than {MAX_TRACE_ROWS:,} rows", str(path))])
        try:
            t = float(row["timestampSeconds"])
            prompt, output = int(row["promptTokens"]), int(row["outputTokens"])
            if not math.isfinite(t) or t < 0 or prompt <= 0 or output <= 0:
                raise ValueError
            flags = []
            for col in TRACE_OPTIONAL:
                cell = (row.get(col) or "").strip().lower()
                if cell not in ("", "true", "false"):
                    raise ValueError
                flags.append(None if cell == "" else cell == "true")
        except (TypeError, ValueError):
            raise ConfigError(
                [
                    Problem(
                        f"{field} line {number}",
                        "timestampSeconds >= 0, promptTokens and outputTokens > 0 (integers), streamed/longContext true or false",
                        dict(row),
                    )
                ]
            ) from None
        rows.append(TraceRow(t, prompt, output, flags[0], bool(flags[1])))
    if not rows:
        raise ConfigError([Problem(field, "the trace has no rows", str(path))])
    return tuple(sorted(rows, key=lambda r: r.t))


def parse_profile(data: Any, source: str = "profile") -> TrafficProfile:
    """Validate a loaded profile document; ConfigError naming each bad field."""
    if not isinstance(data, dict):
        raise ConfigError([Problem(source, "a traffic profile must be a mapping with a models key", data)])
    try:
        return TrafficProfile.model_validate(data)
    except ValidationError as exc:
        problems = []
        for err in exc.errors():
            loc = [
                p
                for p in err["loc"]
                if p not in ("constant", "uniform", "lognormal", "empirical", "function-after[_one(), Arrivals]")
            ]
            rule = err["msg"].removeprefix("Value error, ")
            if err["type"] == "union_tag_invalid":
                rule = "kind must be one of constant, uniform, lognormal, empirical"
            problems.append(Problem(format_path(loc), rule, err.get("input"), has_value="input" in err))
        raise ConfigError(problems) from None


def load_profile(path: Path) -> tuple[TrafficProfile, dict[str, tuple[TraceRow, ...]]]:
    """Read and validate a profile file and its traces (relative paths are from the profile's folder)."""
    from ..loading import STACK_FILE, LoadError, load_yaml

    try:
        data = load_yaml(path, STACK_FILE, name=str(path))
    except LoadError as exc:
        raise ConfigError([Problem("--traffic", str(exc), has_value=False)]) from None
    except OSError as exc:
        raise ConfigError([Problem("--traffic", f"cannot be read: {exc.strerror}", str(path))]) from None
    profile = parse_profile(data, str(path))
    traces = {}
    for name, traffic in profile.models.items():
        if traffic.arrivals.trace is not None:
            trace = Path(traffic.arrivals.trace)
            if not trace.is_absolute():
                trace = path.parent / trace
            traces[name] = read_trace(trace, f"models.{name}.arrivals.trace")
    return profile, traces


def json_schema() -> dict:
    """The profile's JSON Schema (draft 2020-12), as committed in traffic_profile.schema.json."""
    schema = TrafficProfile.model_json_schema(by_alias=True)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://llm-serving/traffic-profile.schema.json",
        **schema,
    }


SCHEMA_PATH = Path(__file__).with_name("traffic_profile.schema.json")
