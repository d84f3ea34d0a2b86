"""The hardware records: loaded from hardware.toml, typed and frozen, misspellings refused at import.

A doctored copy of the real data file goes through the same loader (``load_hardware``) the import uses,
so each refusal below is the one a typo in the shipped file would meet.
"""

from __future__ import annotations

import csv
import dataclasses
import re

import pytest

from components import hardware
from components.builders import karpenter as build
from components.capacity.cuda_graphs import cudagraph_capture_sizes
from components.capacity.gpus import find_gpu, gpu_spec
from components.capacity.plan import plan_stack
from components.capacity.pools import plan_pools
from components.config import load_stack_config
from components.config import pools as config_pools
from components.errors import ConfigError
from components.hardware import GPUS, HARDWARE, INSTANCES, HardwareDataError, load_hardware, pool_architecture
from tests.conftest import ROOT, stack_config

DATA = ROOT / "components" / "hardware.toml"
TEXT = DATA.read_text(encoding="utf-8")


def doctored(old: str, new: str) -> str:
    """The real data file with one exact, unique passage replaced."""
    assert TEXT.count(old) == 1, old
    return TEXT.replace(old, new)


def test_the_import_loads_the_data_file_through_the_loader():
    assert load_hardware(TEXT) == HARDWARE
    assert set(GPUS) >= {"A10G", "L4", "L40S", "A100-40GB", "A100-80GB", "H100", "H200", "B200", "B300", "T4", "T4G"}
    assert len(INSTANCES) == sum(1 for line in TEXT.splitlines() if re.match(r'^"[a-z0-9-]+\.[a-z0-9]+" = \{', line))


def test_records_are_frozen_and_typed():
    h100 = GPUS["H100"]
    assert h100.compute_capability == (9, 0) and h100.nvlink and h100.fp8
    assert h100.interconnect_gb_s == 450.0 and h100.performance is not None and h100.performance.hbm_gb_s == 3350.0
    with pytest.raises(dataclasses.FrozenInstanceError):
        h100.memory_gib = 1.0  # type: ignore[misc]  # the assignment the record must refuse
    with pytest.raises(TypeError):
        GPUS["X"] = h100  # type: ignore[index]  # the catalogue is a read-only mapping
    p5 = INSTANCES["p5.48xlarge"]
    assert (p5.gpu, p5.gpu_count, p5.efa_interfaces, p5.efa, p5.arch) == ("H100", 8, 32, True, "amd64")


def test_misspelt_field_fails_naming_the_row_and_the_field():
    text = doctored('"g5.xlarge" = { gpu = "A10G", gpu_count = 1,', '"g5.xlarge" = { gpu = "A10G", gpu_cuont = 1,')
    with pytest.raises(HardwareDataError) as err:
        load_hardware(text, origin="hardware.toml")
    assert str(err.value) == (
        "hardware.toml: instances.'g5.xlarge': unknown field 'gpu_cuont' (known: arch, efa_interfaces, fractional, gpu, "
        "gpu_count, gpu_memory_gib_ec2, local_nvme_gb, memory_gib, source, vcpu)"
    )


def test_misspelt_gpu_field_fails_naming_the_gpu():
    text = doctored(
        '[gpus.L4]\naliases = ["l4", "nvidia-l4", "NVIDIA L4"]\nkarpenter_gpu_name',
        '[gpus.L4]\naliases = ["l4", "nvidia-l4", "NVIDIA L4"]\nkarpenter_gpu_nmae',
    )
    with pytest.raises(HardwareDataError, match=r"^hardware.toml: gpus.L4: unknown field 'karpenter_gpu_nmae' \(known: "):
        load_hardware(text)


def test_misspelt_performance_field_fails_naming_its_table():
    text = doctored("[gpus.H200.performance]\nhbm_gb_s = 4800", "[gpus.H200.performance]\nhbm_gbs = 4800")
    with pytest.raises(HardwareDataError, match=r"^hardware.toml: gpus.H200.performance: unknown field 'hbm_gbs'"):
        load_hardware(text)


@pytest.mark.parametrize(
    "old,new,message",
    [
        (
            'gpu = "H100", gpu_count = 8, vcpu = 192, memory_gib = 2048, efa_interfaces = 32,',
            'gpu = "H10O", gpu_count = 8, vcpu = 192, memory_gib = 2048, efa_interfaces = 32,',
            "instances.'p5.48xlarge'.gpu = 'H10O': not a GPU of [gpus]",
        ),
        (
            '"p5.4xlarge" = { gpu = "H100", gpu_count = 1, vcpu = 16, memory_gib = 256, efa_interfaces = 1, local_nvme_gb = 3800, arch = "amd64"',
            '"p5.4xlarge" = { gpu = "H100", gpu_count = 1, vcpu = 16, memory_gib = 256, efa_interfaces = 1, local_nvme_gb = 3800, arch = "x86_64"',
            "instances.'p5.4xlarge'.arch = 'x86_64': must be one of amd64, arm64",
        ),
        (
            '"g6.xlarge" = { gpu = "L4", gpu_count = 1,',
            '"g6.xlarge" = { gpu = "L4", gpu_count = "1",',
            "instances.'g6.xlarge'.gpu_count = '1': must be int",
        ),
        (
            '"g6.2xlarge" = { gpu = "L4", gpu_count = 1, vcpu = 8, memory_gib = 32, efa_interfaces = 0, local_nvme_gb = 450, arch = "amd64", source = "karpenter" }',
            '"g6.2xlarge" = { gpu = "L4", gpu_count = 1, vcpu = 8, memory_gib = 32, efa_interfaces = 0, local_nvme_gb = 450, arch = "amd64", source = "karpentr" }',
            "instances.'g6.2xlarge'.source = 'karpentr': not a key of [sources] (karpenter, mamf, torchperf) nor a citation",
        ),
        (
            '"g6.4xlarge" = { gpu = "L4", gpu_count = 1, vcpu = 16, memory_gib = 64, efa_interfaces = 0, local_nvme_gb = 600, arch = "amd64", source = "karpenter" }',
            '"g6.4xlarge" = { gpu = "L4", gpu_count = 1, vcpu = 16, memory_gib = 64, local_nvme_gb = 600, arch = "amd64", source = "karpenter" }',
            "instances.'g6.4xlarge'.efa_interfaces: missing (a required field)",
        ),
        (
            '[gpus.B200]\naliases = ["b200", "nvidia-b200", "NVIDIA B200"]\nkarpenter_gpu_name = "b200"\nmemory_gib = 178.35\nmemory_gib_ec2 = 179.062\ncompute_capability = "10.0"',
            '[gpus.B200]\naliases = ["b200", "nvidia-b200", "NVIDIA B200"]\nkarpenter_gpu_name = "b200"\nmemory_gib = 178.35\nmemory_gib_ec2 = 179.062\ncompute_capability = 10.0',
            "gpus.B200.compute_capability = 10.0: must be str",
        ),
    ],
)
def test_bad_values_fail_naming_the_row_and_the_field(old, new, message):
    with pytest.raises(HardwareDataError) as err:
        load_hardware(doctored(old, new))
    assert str(err.value).startswith(f"hardware.toml: {message}")


def test_every_instance_references_a_known_gpu_and_every_gpu_on_aws_has_an_instance():
    assert all(i.gpu in GPUS for i in INSTANCES.values())
    sold = {g.name for g in GPUS.values() if g.karpenter_gpu_name}
    assert sold == {i.gpu for i in INSTANCES.values()}


def test_every_fact_row_has_a_source():
    for g in GPUS.values():
        assert len(g.source) > 40, g.name
        assert g.performance is None or len(g.performance.source) > 40, g.name
    for i in INSTANCES.values():
        assert i.source == HARDWARE.sources["karpenter"], i.name
        assert "1d927085dd81a9df9301e613f371dac5b4d16bfe" in i.source


def test_instances_match_the_karpenter_reference_rows():
    """Every row against tests/capacity/data/aws_gpu_instances.csv, parsed from the page each row cites."""
    with (ROOT / "tests" / "capacity" / "data" / "aws_gpu_instances.csv").open() as f:
        rows = {r["instance_type"]: r for r in csv.DictReader(f)}
    assert set(rows) == set(INSTANCES)
    for name, i in INSTANCES.items():
        r = rows[name]
        assert (i.gpu_count, i.vcpu, i.memory_gib, i.arch) == (
            int(r["gpu_count"]),
            int(r["vcpu"]),
            float(r["memory_gib"]),
            r["arch"],
        ), name
        assert i.efa_interfaces == (int(r["efa_interfaces"]) if r["efa"] == "yes" else 0), name
        assert i.local_nvme_gb == int(r["local_nvme_gb"] or 0), name
        gpu = GPUS[i.gpu]
        assert gpu.karpenter_gpu_name == r["gpu_model"], name
        if i.fractional:
            assert i.gpu_memory_gib_ec2 == float(r["gpu_memory_gib_per_gpu"]), name
        else:
            assert gpu.memory_gib_ec2 == float(r["gpu_memory_gib_per_gpu"]), name


def test_dtypes_follow_vllms_compute_capability_rule():
    # vLLM v0.33.0 vllm/platforms/cuda.py:256-263 supported_dtypes, :587-588 supports_fp8.
    assert GPUS["T4"].dtypes == GPUS["T4G"].dtypes == frozenset({"float16", "float32"})
    assert not GPUS["T4"].supports_dtype("bfloat16") and GPUS["T4"].supports_dtype("half") and GPUS["T4"].supports_dtype("auto")
    assert GPUS["A10G"].dtypes == frozenset({"bfloat16", "float16", "float32"}) and not GPUS["A10G"].fp8
    assert [g.name for g in GPUS.values() if "bfloat16" not in g.dtypes] == ["RTX-2080-TI", "T4", "T4G"]
    assert sorted(g.name for g in GPUS.values() if g.fp8) == sorted(
        g.name for g in GPUS.values() if g.compute_capability >= (8, 9)
    )
    assert GPUS["L4"].fp8 and GPUS["L4"].compute_capability_str == "8.9"
    # Derived, never given: a record built with another compute capability carries that one's dtypes.
    assert dataclasses.replace(GPUS["A10G"], compute_capability=(7, 0)).dtypes == frozenset({"float16", "float32"})


def test_the_memory_model_reads_compute_capability_and_nvlink_from_the_records():
    nvlink = {g.name for g in GPUS.values() if g.nvlink}
    assert nvlink == {"A100-40GB", "A100-80GB", "H100", "H200", "B200", "B300"}
    for g in GPUS.values():
        gpu = find_gpu(g.name)
        assert (gpu.nvlink, gpu.compute_capability, gpu.memory_gib) == (g.nvlink, g.compute_capability, g.memory_gib)
    assert gpu_spec("tesla-t4") is GPUS["T4"] and gpu_spec("nvidia-t4g") is GPUS["T4G"]
    # vLLM 0.33.0 config/vllm.py:2463-2465: 1024 on compute capability 10.x, else 512.
    assert max(cudagraph_capture_sizes(1024, 8192, find_gpu("B300"))) == 1024
    assert max(cudagraph_capture_sizes(1024, 8192, find_gpu("RTX-PRO-6000"))) == 512


def test_an_unknown_gpu_name_keeps_its_clear_error():
    with pytest.raises(KeyError) as err:
        find_gpu("H1000")
    assert str(err.value) == (
        "unknown GPU 'H1000'; known: A100-40GB, A100-80GB, A10G, B200, B300, H100, H200, L4, L40S, "
        "RTX-2080-TI, RTX-3090, RTX-4090, RTX-PRO-6000, T4, T4G (or give --gpu-memory-gib)"
    )


def _with_pool(instance_types: list[str]) -> dict:
    raw = stack_config("dev")
    raw["llm-serving:gpuPools"].append(
        {
            "name": "graviton",
            "instanceTypes": instance_types,
            "capacityTypes": ["on-demand"],
            "gpuLimit": 2,
            "buffer": {"replicas": 0},
        }
    )
    return raw


def test_the_node_pool_takes_its_arch_from_the_instance_records():
    """Karpenter v1.14.1 gives each instance type the requirement kubernetes.io/arch In [its arch]
    (pkg/providers/instancetype/types.go:189, getArchitecture :323-330 via pkg/apis/v1/labels.go:78-81), and a
    NodePool launches only types whose requirements intersect its own: a g5g pool requiring amd64 (the old
    literal) would launch nothing. The records' arch is the column Karpenter's page prints (test above)."""
    cfg = load_stack_config(_with_pool(["g5g.2xlarge", "g5g.4xlarge"]))
    pools = plan_pools(cfg.gpu_pools, cfg.models, plan_stack(cfg))
    reqs = {
        r["key"]: r["values"]
        for r in build.node_pool(cfg.gpu_pools[1], pools["graviton"])["spec"]["template"]["spec"]["requirements"]
    }
    assert reqs["kubernetes.io/arch"] == ["arm64"] and reqs["karpenter.k8s.aws/instance-gpu-name"] == ["t4g"]
    l40s = build.node_pool(cfg.gpu_pools[0], pools["l40s"])["spec"]["template"]["spec"]["requirements"]
    assert {r["key"]: r["values"] for r in l40s}["kubernetes.io/arch"] == ["amd64"]


def _mixed_arch() -> hardware.Hardware:
    # No GPU of the real catalogue is sold on both architectures; a doctored copy makes one that is.
    return load_hardware(
        doctored(
            '"g5g.xlarge" = { gpu = "T4G", gpu_count = 1, vcpu = 4, memory_gib = 8, efa_interfaces = 0, local_nvme_gb = 0, arch = "arm64"',
            '"g5g.xlarge" = { gpu = "T4", gpu_count = 1, vcpu = 4, memory_gib = 8, efa_interfaces = 0, local_nvme_gb = 0, arch = "arm64"',
        )
    )


def test_a_pool_mixing_architectures_is_refused_naming_each_arch():
    with pytest.raises(ValueError) as err:
        pool_architecture(["g4dn.xlarge", "g5g.xlarge"], _mixed_arch().instances)
    assert str(err.value).startswith("mixes CPU architectures (g4dn.xlarge arch=amd64, g5g.xlarge arch=arm64)")


def test_the_stack_config_refuses_a_pool_mixing_architectures(monkeypatch):
    monkeypatch.setattr(config_pools, "INSTANCES", _mixed_arch().instances)
    with pytest.raises(ConfigError) as err:
        load_stack_config(_with_pool(["g4dn.xlarge", "g5g.xlarge"]))
    assert "gpuPools[1].instanceTypes" in str(err.value)
    assert "mixes CPU architectures (g4dn.xlarge arch=amd64, g5g.xlarge arch=arm64)" in str(err.value)


def test_a_t4_pool_reaches_the_startup_rule_with_the_records_compute_capability():
    """g4dn.12xlarge -> T4 -> compute capability 7.5 from hardware.toml: an explicit bfloat16 does not fit, float16 does."""
    raw = stack_config("dev")
    raw["llm-serving:gpuPools"][0].update({"instanceTypes": ["g4dn.12xlarge"], "gpuLimit": 4})
    raw["llm-serving:models"][0]["engine"].update({"dtype": "bfloat16", "tensorParallelSize": 4, "maxModelLen": 4096})
    plan = plan_stack(load_stack_config(raw))["chat-8b"].memory
    assert not plan.fits and plan.reason.startswith(
        "models[0].engine.dtype: dtype bfloat16 needs a GPU of compute capability 8.0 or above, and the T4 has 7.5"
    )
    raw["llm-serving:models"][0]["engine"]["dtype"] = "float16"
    assert plan_stack(load_stack_config(raw))["chat-8b"].memory.fits


def test_measured_gemm_rates_are_read_with_their_citations():
    """Each GPU the fidelity points run on carries a measured dense GEMM rate with the benchmark it comes from; a GPU
    with none keeps its datasheet peak (the roofline's dense FLOPs run against these: roofline.Roofline.dense_flops_s)."""
    h100 = GPUS["H100"].performance
    assert h100 is not None and (h100.bf16_tflops, h100.bf16_achieved, h100.fp8_achieved) == (989, 794.5, 1402.6)
    assert "744d01e18b79512572f64a6bbd8b5f4a725203a7" in (h100.achieved_source or "")  # the MAMF table, cited
    assert "2048x2048x13312" in (h100.achieved_source or "")  # its shape
    rtx = GPUS["RTX-4090"].performance
    assert rtx is not None and rtx.bf16_achieved == 165.3 and rtx.fp8_achieved == rtx.fp8_tflops  # no FP8 measurement
    assert "9d82827637262c4351e3f9483f96b8cff57a601f" in (rtx.achieved_source or "")
    a10g = GPUS["A10G"].performance
    assert a10g is not None and a10g.bf16_achieved_tflops is None and a10g.bf16_achieved == a10g.bf16_tflops
    for name in ("RTX-4090", "A100-80GB", "H100", "H200", "L40S"):
        perf = GPUS[name].performance
        assert perf is not None and perf.bf16_achieved_tflops and perf.achieved_source, name


@pytest.mark.parametrize(
    "old,new,message",
    [
        (
            "bf16_achieved_tflops = 794.5\nfp8_achieved_tflops = 1402.6\nachieved_source",
            "bf16_achieved_tflops = 794.5\nfp8_achieved_tflops = 1402.6\nachieved_sourc",
            "gpus.H100.performance: unknown field 'achieved_sourc'",
        ),
        (
            "bf16_achieved_tflops = 794.5\nfp8_achieved_tflops = 1402.6\n",
            "bf16_achieved_tflops = 1979\nfp8_achieved_tflops = 1402.6\n",
            "gpus.H100.performance.bf16_achieved_tflops = 1979: must be above 0 and at most 1.1 x the datasheet bf16_tflops",
        ),
        (
            "bf16_achieved_tflops = 165.3\n",
            "bf16_achieved_tflops = 165.3\nfp8_achieved_tflops = 0\n",
            "gpus.RTX-4090.performance.fp8_achieved_tflops = 0: must be above 0",
        ),
        (
            "bf16_achieved_tflops = 271.2\nachieved_source = \"mamf: the 'NVIDIA A100 SXM' BF16 row, 271.2 TFLOPS at 1024x10240x5120 (86.9%, torch 2.6.0+cu126). The torchperf",
            "bf16_achieved_tflops = 271.2\nfp8_achieved_tflops = 500\nachieved_source = \"mamf: the 'NVIDIA A100 SXM' BF16 row, 271.2 TFLOPS at 1024x10240x5120 (86.9%, torch 2.6.0+cu126). The torchperf",
            "gpus.A100-80GB.performance.fp8_achieved_tflops: given without fp8_tflops",
        ),
    ],
)
def test_bad_measured_rates_fail_naming_the_field(old, new, message):
    with pytest.raises(HardwareDataError) as err:
        load_hardware(doctored(old, new))
    assert str(err.value).startswith(f"hardware.toml: {message}")


def test_a_measured_rate_without_its_source_is_refused():
    text = doctored("bf16_achieved_tflops = 165.3\nachieved_source = ", "bf16_achieved_tflops = 165.3\nnote = ")
    with pytest.raises(HardwareDataError, match=r"gpus.RTX-4090.performance: unknown field 'note'"):
        load_hardware(text)
    start = TEXT.index("bf16_achieved_tflops = 165.3\nachieved_source = ")
    line_end = TEXT.index("\n", start + len("bf16_achieved_tflops = 165.3\n"))
    text = TEXT[:start] + "bf16_achieved_tflops = 165.3" + TEXT[line_end:]
    with pytest.raises(HardwareDataError, match=r"gpus.RTX-4090.performance.achieved_source: missing"):
        load_hardware(text)
