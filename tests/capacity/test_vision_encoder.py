"""The Qwen2.5-VL and Qwen2-VL vision encoders' profile charge: the dummy batch vLLM builds, and what the tower holds for it.

Worked examples from vLLM 0.23.0's source (components/capacity/memory.py qwen_vl_dummy_patches and
vision_encoder_profile_bytes cite file and line) on Qwen2.5-VL-7B-Instruct's config.json
(tests/capacity/data/model_configs.json, vision_config: hidden 1280, intermediate 3420, out 3584, patch 14,
merge 2, temporal patch 2).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from components.capacity.architecture import GIB, ArchitectureError, parse_config
from components.capacity.gpus import find_gpu
from components.capacity.memory import (
    RESERVED_GRAPHS,
    SORT_SAMPLER,
    EngineArgs,
    activation_bytes,
    plan_memory,
)
from components.capacity.models import find_model, model_from_config
from components.capacity.vision import (
    VISION_ENCODER_PROFILE_GIB,
    qwen_vl_attention_peak_hidden,
    qwen_vl_dummy_patches,
    vision_encoder_profile_bytes,
)
from tests.conftest import ROOT

CONFIGS = json.loads((Path(__file__).parent / "data" / "model_configs.json").read_text())
QWEN25_VL = CONFIGS["Qwen/Qwen2.5-VL-7B-Instruct"]["config"]
# 16,384 merged tokens (max_pixels 12,845,056 / 28^2) per image or per two video frames, 4 patches each.
PATCHES_PER_FRAME_PAIR = 16_384 * 4
# Pixel values (3 x 2 x 14 x 14 = 1,176) and the MLP's peak (5 x 1,280 + 3 x 3,420 = 16,660) per patch, bf16.
PEAK_BYTES_PER_PATCH = (1_176 + 16_660) * 2


@pytest.fixture(scope="module")
def arch():
    return parse_config(QWEN25_VL)


def test_the_vision_config_is_read(arch):
    v = arch.vision
    assert (v.hidden_size, v.intermediate_size, v.out_hidden_size) == (1280, 3420, 3584)
    assert (v.patch_size, v.spatial_merge_size, v.temporal_patch_size, v.in_channels, v.max_pixels) == (14, 2, 2, 3, 12_845_056)


@pytest.mark.parametrize(
    "max_model_len,frame_pairs",
    [
        (2_048, 1),  # one frame, padded to two: the same patches as the largest image
        (16_384, 1),
        (32_768, 2),  # 4 frames: 2 x 16,384 tokens fit, 5 frames (3 pairs) do not
        (65_536, 4),
        (114_688, 7),  # 14 frames, _MAX_FRAMES_PER_VIDEO
        (128_000, 7),
        (1_000_000, 7),  # capped at 14 frames however long the context
    ],
)
def test_the_dummy_video_grows_with_the_context_up_to_fourteen_frames(arch, max_model_len, frame_pairs):
    assert qwen_vl_dummy_patches(arch, max_model_len, 2048, 256, "0.23.0") == frame_pairs * PATCHES_PER_FRAME_PAIR


def test_releases_before_020_take_sixteen_frames(arch):
    assert qwen_vl_dummy_patches(arch, 1_000_000, 2048, 256, "0.9.0") == 8 * PATCHES_PER_FRAME_PAIR
    assert qwen_vl_dummy_patches(arch, 1_000_000, 2048, 256, None) == 7 * PATCHES_PER_FRAME_PAIR


def test_a_large_token_budget_profiles_several_items(arch):
    # Encoder budget max(65,536, 16,384) holds 4 items of 16,384 tokens; max_num_seqs bounds them too.
    assert qwen_vl_dummy_patches(arch, 2048, 65_536, 256, "0.23.0") == 4 * PATCHES_PER_FRAME_PAIR
    assert qwen_vl_dummy_patches(arch, 2048, 65_536, 2, "0.23.0") == 2 * PATCHES_PER_FRAME_PAIR
    assert qwen_vl_dummy_patches(arch, 2048, 16_384, 256, "0.23.0") == PATCHES_PER_FRAME_PAIR


def test_the_profile_peak_per_patch(arch):
    peak, held = vision_encoder_profile_bytes(arch, 128_000, 2048, 256, "0.23.0")
    patches = 7 * PATCHES_PER_FRAME_PAIR
    assert peak == patches * PEAK_BYTES_PER_PATCH  # 15.24 GiB
    assert peak / GIB == pytest.approx(15.24, abs=0.01)
    # Held through the text dummy run: the pixel values and the merged tokens' outputs.
    assert held == (patches * 1_176 + patches // 4 * 3_584) * 2


def test_activation_takes_the_larger_of_the_encoder_and_the_text_run(arch):
    long = activation_bytes(arch, 2048, 256, 1, RESERVED_GRAPHS, 128_000, "0.23.0")
    short = activation_bytes(arch, 2048, 256, 1, RESERVED_GRAPHS, 2_048, "0.23.0")
    assert long > short + 12 * GIB
    peak, _ = vision_encoder_profile_bytes(arch, 2048, 2048, 256, "0.23.0")
    assert short == pytest.approx(peak + RESERVED_GRAPHS.activation_slack_gib * GIB)
    # A huge sampler warm-up (the sort path, 1,024 rows) outgrows the encoder: the text run plus what it holds.
    text_bound = activation_bytes(arch, 8192, 1024, 1, SORT_SAMPLER, 2_048, "0.9.0")
    _, held = vision_encoder_profile_bytes(arch, 2048, 8192, 1024, "0.9.0")
    assert text_bound > peak + SORT_SAMPLER.activation_slack_gib * GIB and text_bound > held


def test_the_kv_budget_shrinks_by_the_encoder_charge(arch):
    gpu = find_gpu("A100-80GB")
    plans = {
        n: plan_memory(arch, 15.67 * GIB, gpu, EngineArgs(max_model_len=n, gpu_memory_utilization=0.9, vllm_version="0.23.0"))
        for n in (8_192, 32_768, 128_000)
    }
    assert plans[8_192].kv_cache_gib > plans[32_768].kv_cache_gib > plans[128_000].kv_cache_gib
    # 32K -> 128K context: 5 more frame pairs of 65,536 patches at 35,672 bytes each.
    assert plans[32_768].activation_gib - plans[128_000].activation_gib == pytest.approx(
        -5 * PATCHES_PER_FRAME_PAIR * PEAK_BYTES_PER_PATCH / GIB, abs=1e-6
    )


def test_a_text_model_is_charged_nothing():
    m = find_model("Qwen/Qwen2.5-7B-Instruct")
    assert m.arch.vision is None and not m.arch.has_dynamic_vision_encoder
    assert vision_encoder_profile_bytes(m.arch, 32_768, 2048, 256, "0.23.0") == (0.0, 0.0)
    assert qwen_vl_dummy_patches(m.arch, 32_768, 2048, 256) == 0
    short = activation_bytes(m.arch, 2048, 256, 1, RESERVED_GRAPHS, 2_048, "0.23.0")
    assert activation_bytes(m.arch, 2048, 256, 1, RESERVED_GRAPHS, 128_000, "0.23.0") == short


def test_an_unknown_vision_tower_keeps_the_fixed_charge(arch):
    text_only = {k: v for k, v in QWEN25_VL.items() if k != "vision_config"}
    fallback = parse_config(text_only)
    assert fallback.vision is None and fallback.has_dynamic_vision_encoder
    plain = parse_config({**text_only, "model_type": "qwen2"})
    for length in (2_048, 128_000):
        charged = activation_bytes(fallback, 2048, 256, 1, RESERVED_GRAPHS, length, "0.23.0")
        assert charged - activation_bytes(plain, 2048, 256, 1, RESERVED_GRAPHS, length, "0.23.0") == pytest.approx(
            VISION_ENCODER_PROFILE_GIB * GIB
        )
    # Qwen3-VL's tower (deepstack) is not Qwen2.5-VL's: the fixed charge too.
    qwen3 = parse_config(CONFIGS["Qwen/Qwen3-VL-30B-A3B-Instruct"]["config"])
    assert qwen3.vision is None and qwen3.has_dynamic_vision_encoder


@pytest.mark.parametrize("field,value", [("hidden_size", "big"), ("intermediate_size", -1), ("patch_size", 0)])
def test_a_bad_vision_config_is_refused(field, value):
    bad = {**QWEN25_VL, "vision_config": {**QWEN25_VL["vision_config"], field: value}}
    with pytest.raises(ArchitectureError, match=field if value != 0 else "must all be > 0"):
        parse_config(bad)


def test_size_charges_the_encoder_from_a_users_config_json(tmp_path):
    config = tmp_path / "config.json"
    config.write_text(json.dumps(QWEN25_VL))
    out = {}
    for length in (8192, 128000):
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "stacks",
                "size",
                "--model-config",
                str(config),
                "--weights-gib",
                "15.67",
                "--gpu",
                "A100-80GB",
                "--max-model-len",
                str(length),
                "--vllm-version",
                "0.23.0",
                "--json",
            ],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert proc.returncode in (0, 1), proc.stderr
        out[length] = json.loads(proc.stdout)
    assert out[128000]["activation_gib"] - out[8192]["activation_gib"] > 12


def test_a_bad_vision_config_exits_2_naming_the_field(tmp_path):
    config = tmp_path / "config.json"
    config.write_text(json.dumps({**QWEN25_VL, "vision_config": {**QWEN25_VL["vision_config"], "hidden_size": "big"}}))
    proc = subprocess.run(
        [sys.executable, "-m", "stacks", "size", "--model-config", str(config), "--weights-gib", "15.67", "--gpu", "A100-80GB"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2 and "hidden_size" in proc.stderr and "Traceback" not in proc.stderr


def test_model_from_config_carries_the_vision_tower():
    m = model_from_config(QWEN25_VL, 15.67, name="Qwen/Qwen2.5-VL-7B-Instruct")
    assert m.arch.vision is not None


# Qwen2-VL-7B-Instruct (tests/capacity/data/model_configs.json, vision_config: embed_dim 1280, mlp_ratio 4,
# hidden_size 3584 = the merger's output, patch 14, merge 2, temporal patch 2), derived from vLLM 0.13.0's
# qwen2_vl.py (memory.py vision_encoder_profile_bytes cites the lines).
QWEN2_VL = CONFIGS["Qwen/Qwen2-VL-7B-Instruct"]["config"]
# Per patch: the pixel values (3 x 2 x 14 x 14 = 1,176) and the MLP's peak: the block input and norm2's output
# (2 x 1,280) with fc1's output, 1.702 x and its sigmoid (3 x int(1,280 x 4) = 3 x 5,120): 17,920 values, above
# the attention's 11 x 1,280 = 14,080; bf16.
QWEN2_VL_PEAK_BYTES_PER_PATCH = (1_176 + 2 * 1_280 + 3 * 5_120) * 2


@pytest.fixture(scope="module")
def qwen2():
    return parse_config(QWEN2_VL)


def test_the_qwen2_vl_vision_config_is_read(qwen2):
    v = qwen2.vision
    assert (v.hidden_size, v.intermediate_size, v.out_hidden_size, v.mlp) == (1280, 5120, 3584, "quick_gelu")
    assert (v.patch_size, v.spatial_merge_size, v.temporal_patch_size, v.in_channels, v.max_pixels) == (14, 2, 2, 3, 12_845_056)
    assert qwen2.has_dynamic_vision_encoder and parse_config(QWEN25_VL).vision.mlp == "gated"


def test_the_qwen2_vl_profile_at_4096_tokens_on_0_13(qwen2):
    # nv04/nv05's setting: max_model_len 4096 (one frame: the video and the image have 16,384 tokens each),
    # 2,048 batched tokens, 256 sequences: one item of 65,536 patches.
    assert qwen_vl_dummy_patches(qwen2, 4096, 2048, 256, "0.13.0") == PATCHES_PER_FRAME_PAIR
    peak, held = vision_encoder_profile_bytes(qwen2, 4096, 2048, 256, "0.13.0")
    assert peak == 65_536 * QWEN2_VL_PEAK_BYTES_PER_PATCH == 2_502_950_912  # 2.33 GiB
    assert held == (65_536 * 1_176 + 16_384 * 3_584) * 2
    # It is what the profile charges: the encoder's peak is above the text run plus what it holds.
    charged = activation_bytes(qwen2, 2048, 256, 1, SORT_SAMPLER, 4096, "0.13.0")
    assert charged == pytest.approx(peak + SORT_SAMPLER.activation_slack_gib * GIB)
    # Above the text model's own peak it adds 0.93 GiB, where the fixed charge it replaces added 2.5.
    text = parse_config({**QWEN2_VL, "model_type": "qwen2"})
    extra = charged - activation_bytes(text, 2048, 256, 1, SORT_SAMPLER, 4096, "0.13.0")
    assert extra / GIB == pytest.approx(0.93, abs=0.01) and VISION_ENCODER_PROFILE_GIB == 2.5


def test_the_qwen2_vl_kv_budget_moves_by_the_derived_charge(qwen2):
    # A 0.5 GiB shift in the Qwen2-VL term moves the plan's KV cache by as much: pinned to the hand-computed figure.
    gpu = find_gpu("RTX-3090", 23.58)
    args = EngineArgs(max_model_len=4096, gpu_memory_utilization=0.9, vllm_version="0.13.0")
    plan = plan_memory(qwen2, 15.532 * GIB, gpu, args)
    expected = (
        0.9 * 23.58
        - plan.weights_gib
        - (65_536 * QWEN2_VL_PEAK_BYTES_PER_PATCH / GIB + 0.05)
        - plan.non_torch_gib
        - plan.cuda_graph_gib
    )
    assert plan.kv_cache_gib == pytest.approx(expected, abs=1e-9)
    assert plan.activation_gib == pytest.approx(2.38, abs=0.005)


@pytest.mark.parametrize(
    "version,hidden_multiple",
    [
        ("0.9.0", 13),  # q and k rotated one at a time in float32 (0.9.0.1)
        ("0.10.1", 20),  # not read: taken as 0.11
        ("0.11.0", 20),  # q and k concatenated, then rotated in float32 (0.11.0)
        ("0.12.0", 11),  # rotated in the model dtype (0.12.0, 0.13.0, 0.20.0-0.33.0)
        ("0.13.0", 11),
        ("0.23.0", 11),
        (None, 20),  # unknown: the largest
    ],
)
def test_the_attention_peak_follows_the_release(version, hidden_multiple):
    assert qwen_vl_attention_peak_hidden(version) == hidden_multiple


def test_0_11_profiles_the_float32_rotation(arch, qwen2):
    # 0.11.0: 20 x 1,280 = 25,600 values per patch in the attention, above either MLP, for both towers.
    for tower in (arch, qwen2):
        peak, _ = vision_encoder_profile_bytes(tower, 8192, 2048, 256, "0.11.0")
        assert peak == 65_536 * (1_176 + 20 * 1_280) * 2  # 3.27 GiB
    # 0.9's one-at-a-time rotation (13 x 1,280 = 16,640) stays below Qwen2.5-VL's MLP (16,660): unchanged.
    assert vision_encoder_profile_bytes(arch, 2048, 2048, 256, "0.9.0")[0] == 65_536 * PEAK_BYTES_PER_PATCH


def test_an_incomplete_qwen2_vl_vision_config_keeps_the_fixed_charge():
    partial = parse_config(
        {**QWEN2_VL, "vision_config": {k: v for k, v in QWEN2_VL["vision_config"].items() if k != "mlp_ratio"}}
    )
    assert partial.vision is None and partial.has_dynamic_vision_encoder


@pytest.mark.parametrize(
    "field,value,message",
    [
        ("mlp_ratio", "big", "mlp_ratio"),
        ("mlp_ratio", 0, "mlp_ratio"),
        ("mlp_ratio", float("nan"), "mlp_ratio"),
        ("embed_dim", -1, "embed_dim"),
        ("hidden_size", "x", "hidden_size"),
        ("patch_size", 0, "must all be > 0"),
    ],
)
def test_a_bad_qwen2_vl_vision_config_is_refused(field, value, message):
    bad = {**QWEN2_VL, "vision_config": {**QWEN2_VL["vision_config"], field: value}}
    with pytest.raises(ArchitectureError, match=message):
        parse_config(bad)
