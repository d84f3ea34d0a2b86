"""Hardware facts as typed records: every GPU type and AWS GPU instance type, loaded from hardware.toml.

``hardware.toml`` beside this module is the one place the product keeps these facts, each row with its
source (the file's header says what every field means). ``load_hardware`` turns its text into frozen
records and refuses, naming the row and the field, a field it does not know (a misspelling), a field
that is missing, a value of the wrong type or outside its set, an instance whose GPU is unknown and a
source key that ``[sources]`` does not define: a typo fails the import instead of silently falling back.

What follows from a fact by vLLM's own rule is derived here, not written in the data, so the two cannot
disagree: the dtypes a GPU can run (``supported_dtypes``) and whether it has native FP8 (``fp8``).

Pure: the file is read once at import, from beside this module, so an installed wheel reads its own copy
(setup.py ships ``*.toml`` as package data), as components/serving_engines.py reads its table.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, Mapping, Optional, Sequence

from .parse_cache import read_toml

__all__ = [
    "ARCHITECTURES",
    "GPUS",
    "HARDWARE",
    "INSTANCES",
    "GpuSpec",
    "Hardware",
    "HardwareDataError",
    "InstanceSpec",
    "Performance",
    "hardware_of",
    "load_hardware",
    "pool_architecture",
    "supported_dtypes",
]

DATA_FILE = "hardware.toml"
# kubernetes.io/arch values of the nodes Karpenter launches: Karpenter v1.14.1 pkg/apis/v1/labels.go:78-81
# (AWSToKubeArchitectures: EC2's x86_64 -> amd64, arm64 -> arm64), set on each instance type's requirements in
# pkg/providers/instancetype/types.go:189 (getArchitecture, :323-330).
ARCHITECTURES = ("amd64", "arm64")
# How tensor-parallel ranks on one node reach each other: NVLink, PCIe peer-to-peer, or neither (the driver grants no
# peer access, so NCCL stages every transfer through host memory: components/simulate/roofline.py ALLREDUCE_LATENCY_S).
INTERCONNECTS = ("nvlink", "pcie", "host")

# vLLM v0.33.0 vllm/platforms/cuda.py:256-265 (CudaPlatformBase.supported_dtypes): compute capability
# >= 8.0 runs bfloat16, float16 and float32; >= 6.0 float16 and float32 ("BF16 is not supported"). The
# worker refuses a bfloat16 model below 8.0 at start (cuda.py:637-656 check_if_supports_dtype, called
# from vllm/v1/worker/gpu_worker.py:498): "Bfloat16 is only supported on GPUs with compute capability
# of at least 8.0".
_DTYPE_FROM: tuple[tuple[str, tuple[int, int]], ...] = (("float32", (6, 0)), ("float16", (6, 0)), ("bfloat16", (8, 0)))
# vLLM v0.33.0 vllm/platforms/cuda.py:587-588 (supports_fp8): native FP8 from compute capability 8.9.
FP8_FROM = (8, 9)


class HardwareDataError(ValueError):
    """The hardware data file breaks its schema; the message names the row and the field."""


def supported_dtypes(compute_capability: tuple[int, int]) -> frozenset[str]:
    """The model dtypes vLLM runs on a GPU of this compute capability (vLLM's names: float32, float16, bfloat16)."""
    return frozenset(name for name, least in _DTYPE_FROM if compute_capability >= least)


@dataclass(frozen=True, slots=True)
class Performance:
    """Datasheet throughput peaks of one GPU, for the simulator's roofline (dense, not "with sparsity")."""

    hbm_gb_s: float  # memory bandwidth, GB/s (10^9)
    bf16_tflops: float  # dense BF16 tensor-core peak
    fp8_tflops: Optional[float]  # dense FP8 tensor-core peak; None without FP8 tensor cores
    source: str
    # Measured dense GEMM throughput (a published matmul benchmark, achieved_source), None where none is cited: the
    # roofline computes against these (bf16_achieved / fp8_achieved), so its FLOP_EFFICIENCY is what LLM layers lose
    # beyond a pure GEMM, the same factor on every GPU.
    bf16_achieved_tflops: Optional[float] = None
    fp8_achieved_tflops: Optional[float] = None
    achieved_source: Optional[str] = None
    # Measured rate at which a decode step's dense weight reads stream (a published benchmark of a decode-sized GEMM or
    # a streaming read on this GPU, hbm_achieved_source), GB/s; None where none is cited: the roofline then charges
    # them at its calibrated HBM_EFFICIENCY of hbm_gb_s (components/simulate/roofline.py Roofline.dense_read_bytes_s).
    hbm_achieved_gb_s: Optional[float] = None
    hbm_achieved_source: Optional[str] = None

    @property
    def bf16_achieved(self) -> float:
        """The measured dense BF16 GEMM rate, or the datasheet peak where no measurement is cited (TFLOP/s)."""
        return self.bf16_achieved_tflops if self.bf16_achieved_tflops is not None else self.bf16_tflops

    @property
    def fp8_achieved(self) -> Optional[float]:
        """The measured dense FP8 GEMM rate, or the datasheet FP8 peak (None without FP8 tensor cores)."""
        return self.fp8_achieved_tflops if self.fp8_achieved_tflops is not None else self.fp8_tflops


@dataclass(frozen=True, slots=True)
class GpuSpec:
    """One GPU type: the facts the capacity plan, the Karpenter pools and the simulator read."""

    name: str  # canonical, upper case: what stack files, --gpu and messages say
    aliases: tuple[str, ...]
    karpenter_gpu_name: Optional[str]  # label karpenter.k8s.aws/instance-gpu-name; None when not sold on AWS
    memory_gib: float  # total device memory as CUDA reports it (what vLLM budgets from)
    memory_gib_ec2: Optional[float]  # EC2's instance-gpu-memory / 1024; None when not sold on AWS
    compute_capability: tuple[int, int]  # (major, minor)
    interconnect: str  # "nvlink", "pcie" or "host" (no GPU peer access): how tensor-parallel ranks on one node talk
    interconnect_gb_s: float  # per GPU and direction, GB/s
    source: str
    performance: Optional[Performance]  # None: the simulator cannot model this GPU
    # Derived, never given: supported_dtypes(compute_capability), so a record cannot contradict vLLM's rule.
    dtypes: frozenset[str] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "dtypes", supported_dtypes(self.compute_capability))

    @property
    def nvlink(self) -> bool:
        """Ranks talk over NVLink (vLLM's custom all-reduce and its buffers), not PCIe."""
        return self.interconnect == "nvlink"

    @property
    def fp8(self) -> bool:
        """Native FP8 compute (vLLM's supports_fp8); below it vLLM runs fp8 weights through Marlin weight-only kernels."""
        return self.compute_capability >= FP8_FROM

    @property
    def compute_capability_str(self) -> str:
        """``"8.9"``: the form NVIDIA's table and vLLM's messages print."""
        return f"{self.compute_capability[0]}.{self.compute_capability[1]}"

    def supports_dtype(self, dtype: str) -> bool:
        """Whether vLLM runs ``--dtype dtype`` here (``auto``, ``half`` and ``float`` as vLLM resolves them)."""
        resolved = {"half": "float16", "float": "float32"}.get(dtype, dtype)
        return resolved == "auto" or resolved in self.dtypes


@dataclass(frozen=True, slots=True)
class InstanceSpec:
    """One EC2 GPU instance type."""

    name: str
    gpu: str  # a key of GPUS
    gpu_count: int  # 0 for fractional slices (g6f)
    vcpu: int
    memory_gib: float  # host memory
    efa_interfaces: int  # vpc.amazonaws.com/efa devices a node advertises; 0 without EFA
    local_nvme_gb: int  # instance-local NVMe as EC2 reports it; 0 without
    arch: str  # kubernetes.io/arch: "amd64" or "arm64"
    source: str
    fractional: bool = False  # a GPU slice (g6f): EC2 and Karpenter report 0 GPUs
    gpu_memory_gib_ec2: Optional[float] = None  # the slice's memory, fractional types only

    @property
    def efa(self) -> bool:
        """The node advertises EFA devices."""
        return self.efa_interfaces > 0


@dataclass(frozen=True, slots=True)
class Hardware:
    """Everything one data file holds."""

    gpus: Mapping[str, GpuSpec]
    instances: Mapping[str, InstanceSpec]
    sources: Mapping[str, str]


# Field -> (accepted Python types, required). TOML integers are accepted where floats are.
_NUM = (int, float)
_GPU_FIELDS: dict[str, tuple[tuple[type, ...], bool]] = {
    "aliases": ((list,), True),
    "karpenter_gpu_name": ((str,), False),
    "memory_gib": (_NUM, True),
    "memory_gib_ec2": (_NUM, False),
    "compute_capability": ((str,), True),
    "interconnect": ((str,), True),
    "interconnect_gb_s": (_NUM, True),
    "source": ((str,), True),
    "performance": ((dict,), False),
}
_PERFORMANCE_FIELDS: dict[str, tuple[tuple[type, ...], bool]] = {
    "hbm_gb_s": (_NUM, True),
    "bf16_tflops": (_NUM, True),
    "fp8_tflops": (_NUM, False),
    "source": ((str,), True),
    "bf16_achieved_tflops": (_NUM, False),
    "fp8_achieved_tflops": (_NUM, False),
    "achieved_source": ((str,), False),
    "hbm_achieved_gb_s": (_NUM, False),
    "hbm_achieved_source": ((str,), False),
}
_INSTANCE_FIELDS: dict[str, tuple[tuple[type, ...], bool]] = {
    "gpu": ((str,), True),
    "gpu_count": ((int,), True),
    "vcpu": ((int,), True),
    "memory_gib": (_NUM, True),
    "efa_interfaces": ((int,), True),
    "local_nvme_gb": ((int,), True),
    "arch": ((str,), True),
    "source": ((str,), True),
    "fractional": ((bool,), False),
    "gpu_memory_gib_ec2": (_NUM, False),
}


def _checked(row: Any, schema: Mapping[str, tuple[tuple[type, ...], bool]], where: str) -> dict[str, Any]:
    """``row`` as a dict after checking its keys and value types against ``schema``; errors name ``where``."""
    if not isinstance(row, dict):
        raise HardwareDataError(f"{where}: must be a table, not {type(row).__name__}")
    unknown = sorted(set(row) - set(schema))
    if unknown:
        raise HardwareDataError(f"{where}: unknown field {unknown[0]!r} (known: {', '.join(sorted(schema))})")
    for key, (types, required) in schema.items():
        if key not in row:
            if required:
                raise HardwareDataError(f"{where}.{key}: missing (a required field)")
            continue
        value = row[key]
        # bool is an int in Python: only a bool field takes true/false.
        if isinstance(value, bool) and bool not in types or not isinstance(value, types):
            expected = " or ".join(t.__name__ for t in types)
            raise HardwareDataError(f"{where}.{key} = {value!r}: must be {expected}")
    return dict(row)


def _one_of(value: str, allowed: Sequence[str], where: str) -> str:
    if value not in allowed:
        raise HardwareDataError(f"{where} = {value!r}: must be one of {', '.join(allowed)}")
    return value


def _compute_capability(text: str, where: str) -> tuple[int, int]:
    major, dot, minor = text.partition(".")
    if not (dot and major.isdigit() and minor.isdigit()):
        raise HardwareDataError(f'{where} = {text!r}: must be "major.minor", such as "8.9"')
    return int(major), int(minor)


def _source(text: str, sources: Mapping[str, str], where: str) -> str:
    """A row's source: a key of [sources] stands for its text, ``"key: detail"`` for its text followed by the detail;
    anything else must read as a citation."""
    if text in sources:
        return sources[text]
    key, sep, detail = text.partition(": ")
    if sep and key in sources:
        return f"{sources[key]}. {detail}"
    if " " not in text.strip():
        raise HardwareDataError(f"{where} = {text!r}: not a key of [sources] ({', '.join(sorted(sources))}) nor a citation")
    return text


# A measured GEMM rate above its datasheet peak by more than a boost clock's margin is a misread (a "with sparsity"
# figure, the wrong dtype): GeForce cards run above their rated boost clock (RTX 4090 rows reach 105% of 165.2).
_ACHIEVED_OVER_PEAK = 1.10


def _performance(row: Any, sources: Mapping[str, str], where: str) -> Performance:
    p = _checked(row, _PERFORMANCE_FIELDS, where)
    achieved = {k: float(p[k]) for k in ("bf16_achieved_tflops", "fp8_achieved_tflops") if k in p}
    if achieved and "achieved_source" not in p:
        raise HardwareDataError(f"{where}.achieved_source: missing (a measured rate names its benchmark)")
    if "achieved_source" in p and not achieved:
        raise HardwareDataError(f"{where}.achieved_source: given without bf16_achieved_tflops or fp8_achieved_tflops")
    if "fp8_achieved_tflops" in p and "fp8_tflops" not in p:
        raise HardwareDataError(f"{where}.fp8_achieved_tflops: given without fp8_tflops (no FP8 tensor cores)")
    for key, value in achieved.items():
        peak = float(p[key.replace("_achieved", "")])
        if not 0 < value <= peak * _ACHIEVED_OVER_PEAK:
            raise HardwareDataError(
                f"{where}.{key} = {value:g}: must be above 0 and at most {_ACHIEVED_OVER_PEAK:g} x the datasheet "
                f"{key.replace('_achieved', '')} ({peak:g})"
            )
    hbm = _hbm_achieved(p, float(p["hbm_gb_s"]), where)
    return Performance(
        hbm_gb_s=float(p["hbm_gb_s"]),
        bf16_tflops=float(p["bf16_tflops"]),
        fp8_tflops=float(p["fp8_tflops"]) if "fp8_tflops" in p else None,
        source=_source(p["source"], sources, f"{where}.source"),
        bf16_achieved_tflops=achieved.get("bf16_achieved_tflops"),
        fp8_achieved_tflops=achieved.get("fp8_achieved_tflops"),
        achieved_source=_source(p["achieved_source"], sources, f"{where}.achieved_source") if "achieved_source" in p else None,
        hbm_achieved_gb_s=hbm,
        hbm_achieved_source=_source(p["hbm_achieved_source"], sources, f"{where}.hbm_achieved_source") if hbm else None,
    )


def _hbm_achieved(p: Mapping[str, Any], datasheet: float, where: str) -> Optional[float]:
    """A row's measured weight-streaming bandwidth (GB/s), given with its source and at most the datasheet's; None."""
    if ("hbm_achieved_gb_s" in p) != ("hbm_achieved_source" in p):
        given, missing = ("hbm_achieved_gb_s", "hbm_achieved_source")[:: 1 if "hbm_achieved_gb_s" in p else -1]
        raise HardwareDataError(f"{where}.{missing}: missing (given with {given}: a measured bandwidth names its benchmark)")
    if "hbm_achieved_gb_s" not in p:
        return None
    value = float(p["hbm_achieved_gb_s"])
    if not 0 < value <= datasheet:
        raise HardwareDataError(
            f"{where}.hbm_achieved_gb_s = {value:g}: must be above 0 and at most the datasheet hbm_gb_s ({datasheet:g})"
        )
    return value


def _gpu(name: str, row: Any, sources: Mapping[str, str]) -> GpuSpec:
    where = f"gpus.{name}"
    r = _checked(row, _GPU_FIELDS, where)
    perf = None
    if "performance" in r:
        perf = _performance(r["performance"], sources, f"{where}.performance")
    if not all(isinstance(a, str) for a in r["aliases"]):
        raise HardwareDataError(f"{where}.aliases: must be a list of strings")
    cc = _compute_capability(r["compute_capability"], f"{where}.compute_capability")
    return GpuSpec(
        name=name,
        aliases=tuple(r["aliases"]),
        karpenter_gpu_name=r.get("karpenter_gpu_name"),
        memory_gib=float(r["memory_gib"]),
        memory_gib_ec2=float(r["memory_gib_ec2"]) if "memory_gib_ec2" in r else None,
        compute_capability=cc,
        interconnect=_one_of(r["interconnect"], INTERCONNECTS, f"{where}.interconnect"),
        interconnect_gb_s=float(r["interconnect_gb_s"]),
        source=_source(r["source"], sources, f"{where}.source"),
        performance=perf,
    )


def _instance(name: str, row: Any, gpus: Mapping[str, GpuSpec], sources: Mapping[str, str]) -> InstanceSpec:
    where = f"instances.{name!r}"
    r = _checked(row, _INSTANCE_FIELDS, where)
    if r["gpu"] not in gpus:
        raise HardwareDataError(f"{where}.gpu = {r['gpu']!r}: not a GPU of [gpus] ({', '.join(sorted(gpus))})")
    fractional = bool(r.get("fractional", False))
    if fractional != ("gpu_memory_gib_ec2" in r):
        raise HardwareDataError(f"{where}: fractional = true and gpu_memory_gib_ec2 go together (a GPU slice's memory)")
    return InstanceSpec(
        name=name,
        gpu=r["gpu"],
        gpu_count=r["gpu_count"],
        vcpu=r["vcpu"],
        memory_gib=float(r["memory_gib"]),
        efa_interfaces=r["efa_interfaces"],
        local_nvme_gb=r["local_nvme_gb"],
        arch=_one_of(r["arch"], ARCHITECTURES, f"{where}.arch"),
        source=_source(r["source"], sources, f"{where}.source"),
        fractional=fractional,
        gpu_memory_gib_ec2=float(r["gpu_memory_gib_ec2"]) if fractional else None,
    )


def load_hardware(text: str, origin: str = DATA_FILE) -> Hardware:
    """Parse and check hardware data (the text of a file shaped like hardware.toml); errors start with ``origin``."""
    import tomllib  # here, not at import: the packaged table is read through components/parse_cache.py

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise HardwareDataError(f"{origin}: {exc}") from None
    return hardware_of(data, origin)


def hardware_of(data: dict, origin: str = DATA_FILE) -> Hardware:
    """Check parsed hardware data (tomllib's result for a file shaped like hardware.toml); errors start with ``origin``."""
    try:
        unknown = sorted(set(data) - {"sources", "gpus", "instances"})
        if unknown:
            raise HardwareDataError(f"unknown table {unknown[0]!r} (known: gpus, instances, sources)")
        sources = data.get("sources", {})
        if not all(isinstance(v, str) for v in sources.values()):
            raise HardwareDataError("sources: every value must be a string")
        gpus = {name: _gpu(name, row, sources) for name, row in data.get("gpus", {}).items()}
        instances = {name: _instance(name, row, gpus, sources) for name, row in data.get("instances", {}).items()}
    except HardwareDataError as exc:
        raise HardwareDataError(f"{origin}: {exc}") from None
    return Hardware(gpus=MappingProxyType(gpus), instances=MappingProxyType(instances), sources=MappingProxyType(dict(sources)))


def pool_architecture(instance_types: Sequence[str], instances: Mapping[str, InstanceSpec]) -> str:
    """The one CPU architecture (``kubernetes.io/arch``) of a pool's instance types.

    A Karpenter NodePool requires one architecture (the nodes' image and the serving image must match it),
    so a pool that mixes them is refused, naming each type's ``arch``.
    """
    arches = {instances[t].arch for t in instance_types}
    if len(arches) > 1:
        shown = ", ".join(f"{t} arch={instances[t].arch}" for t in sorted(instance_types))
        raise ValueError(
            f"mixes CPU architectures ({shown}); a pool's nodes share one kubernetes.io/arch: use one pool per architecture"
        )
    return arches.pop()


def _load_packaged() -> Hardware:
    # A path beside this module rather than importlib.resources, whose import (zipfile and its readers) cost ~4 ms
    # of every `policies check` (benchmarks/policies_check.py); the pack and the wheel ship plain folders.
    # Parsed once per edit of the file (components/parse_cache.py); every row is checked on each import all the same.
    path = Path(__file__).with_name(DATA_FILE)
    try:
        data = read_toml(path)
    except ValueError as exc:  # tomllib.TOMLDecodeError, or text that is not UTF-8
        raise HardwareDataError(f"{path}: {exc}") from None
    return hardware_of(data, origin=str(path))


HARDWARE = _load_packaged()
GPUS: Mapping[str, GpuSpec] = HARDWARE.gpus
INSTANCES: Mapping[str, InstanceSpec] = HARDWARE.instances
