"""The vision encoder's share of vLLM's profile run: the dummy images and videos of a Qwen-VL model and what
its encoder holds at peak (components.capacity.memory adds it to the activation peak)."""

from __future__ import annotations

import math
from typing import Optional

from ..capacity.accounting import parse_release
from ..capacity.architecture import Architecture

# The Qwen-VL vision encoder's profile run, where the model's vision tower is not one memory.py derives
# (Qwen3-VL, or a config.json without a Qwen2-VL/Qwen2.5-VL vision_config): the logs of
# Qwen3-VL-30B-A3B (RTX 3090 TP4, nk01) and Qwen2.5-VL-7B (L4, rh01) show 1.6-2.2 GiB above
# the text model's peak. Qwen2-VL's and Qwen2.5-VL's are derived instead (vision_encoder_profile_bytes).
VISION_ENCODER_PROFILE_GIB = 2.5
# Qwen2-VL/2.5-VL processing (vllm/model_executor/models/qwen2_vl.py _MAX_FRAMES_PER_VIDEO): the most
# frames of the dummy video, 14 in 0.11.0-0.33.0 (line 82 of 0.11.0, 115 of 0.13.0 and 0.20.0, 117 of
# 0.23.0, 120 of 0.33.0), 16 in 0.9.0.1 (line 82); the 0.10 releases, not read, take 16, the larger video.
QWEN_VL_MAX_FRAMES = 14
QWEN_VL_MAX_FRAMES_FROM = (0, 11)
QWEN_VL_MAX_FRAMES_BEFORE_011 = 16
# The largest aspect ratio the dummy image may have (qwen2_vl.py get_image_size_with_most_features).
QWEN_VL_MAX_ASPECT = 200
# The Qwen2-VL/2.5-VL vision attention's peak per patch, in multiples of the tower's hidden size, by how the
# release rotates q and k (qwen_vl_attention_peak_hidden): in the model dtype from 0.12 (11), in float32 after
# concatenating them (20, 0.11.0; the 0.10 releases, not read, are taken the same: the larger), in float32 one
# at a time (13, 0.9.0.1 and the releases before it).
QWEN_VL_ATTENTION_PEAK_HIDDEN = 11
QWEN_VL_FP32_ROTARY_ATTENTION_PEAK_HIDDEN = 20
QWEN_VL_SPLIT_ROTARY_ATTENTION_PEAK_HIDDEN = 13


def qwen_vl_dummy_patches(arch: Architecture, max_model_len: int, tokens: int, seqs: int, version: Optional[str] = None) -> int:
    """Vision patches of the dummy batch vLLM's profile run feeds a Qwen2-VL/2.5-VL encoder (0 without a vision tower).

    Qwen2.5-VL reuses Qwen2-VL's processing info and dummy inputs, so one count serves both. Read in vLLM
    0.23.0 (same code in 0.20.0-0.33.0):
    - v1/worker/gpu_model_runner.py profile_run (lines 6168-6240): one modality, the one with the most
      tokens per item (multimodal/encoder_budget.py get_modality_with_max_tokens, line 182; a tie goes to
      "video"), max_items_per_batch items of it.
    - model_executor/models/qwen2_vl.py: the image with the most features is max_pixels split into
      (patch x merge)^2 units in the factor pair closest to square with aspect <= 200
      (get_image_size_with_most_features, lines 965-1016); a video repeats it over as many frames as
      max_model_len holds, at most _MAX_FRAMES_PER_VIDEO, frames padded to temporal_patch_size
      (get_num_frames_with_most_features / _get_max_video_frames / _get_vision_info, lines 880-1093).
    - multimodal/encoder_budget.py _get_max_items (lines 140-180) with compute_mm_encoder_budget
      (v1/core/encoder_cache_manager.py lines 269-316): the encoder budget is max(max_num_batched_tokens,
      tokens per item) (config/scheduler.py lines 235-236), items = max(1, min(budget // tokens per item,
      max_num_seqs x min(999, max_model_len // tokens per item) or 1)); limit_mm_per_prompt defaults to 999
      per modality (config/multimodal.py lines 20 and 80-84).
    The same steps in 0.13.0: gpu_model_runner.py profile_run (lines 4424-4471) and _get_mm_dummy_batch
    (lines 3940-3967, seq_len = max_model_len, mm_counts {modality: 1}); v1/worker/utils.py MultiModalBudget
    (lines 25-113: get_modality_with_max_tokens, line 76, takes the first of equal maxima, "image", whose
    patches equal a one-frame video's; get_max_items, lines 85-113); v1/core/encoder_cache_manager.py
    compute_mm_encoder_budget (lines 302-349); qwen2_vl.py get_image_size_with_most_features (lines
    923-959, max_pixels = the image processor's max_pixels or size["longest_edge"]), _get_vision_info
    (lines 849-889) and get_num_frames_with_most_features (lines 991-1004); config/multimodal.py
    get_limit_per_prompt (lines 215-225): a modality --limit-mm-per-prompt does not name keeps 999.
    """
    vision = arch.vision
    if vision is None:
        return 0
    unit = vision.patch_size * vision.spatial_merge_size
    units = max(vision.max_pixels // (unit * unit), 1)
    for n in range(units, 0, -1):
        short = next(d for d in range(math.isqrt(n), 0, -1) if n % d == 0)
        if (n // short) / short <= QWEN_VL_MAX_ASPECT:
            units = short * (n // short)
            break
    tp_frames = vision.temporal_patch_size

    def video_tokens(frames: int) -> int:
        return max((frames + frames % tp_frames) // tp_frames, 1) * units

    release = parse_release(version)
    cap = QWEN_VL_MAX_FRAMES if release is None or release >= QWEN_VL_MAX_FRAMES_FROM else QWEN_VL_MAX_FRAMES_BEFORE_011
    frames = 1
    while frames < cap and video_tokens(frames + 1) <= max_model_len:
        frames += 1
    per_item = max(video_tokens(frames), units)  # the video; an image is one frame's worth
    budget = max(tokens, per_item)
    per_prompt = max(1, min(999, max_model_len // per_item))
    items = max(1, min(budget // per_item, seqs * per_prompt))
    return items * per_item * vision.spatial_merge_size**2


def vision_encoder_profile_bytes(
    arch: Architecture, max_model_len: int, tokens: int, seqs: int, version: Optional[str] = None
) -> tuple[float, float]:
    """(peak, held): a Qwen2-VL/2.5-VL encoder's profile peak on vLLM's dummy batch, and what stays alive after it.

    Qwen2.5-VL, per patch, in the model dtype (vLLM 0.23.0; the same lines in 0.20.0-0.33.0):
    - the dummy pixel values, in_channels x temporal_patch_size x patch_size^2 values, cast to the model
      dtype by the processor (multimodal/processing/context.py line 234) and held by profile_run's
      batched_dummy_mm_inputs until the text dummy run ends (gpu_model_runner.py line 6210);
    - the vision block's peak (model_executor/models/qwen2_5_vl.py): in the MLP, the block input, the
      attention output, the out-of-place add-norm's two results (line 522; the native
      fused_add_rms_norm, vllm/ir/ops/layernorm.py line 40, returns new tensors), gate_up (2 x
      intermediate), its activation (intermediate) and down_proj's output (lines 340-344): 5 x hidden + 3 x
      intermediate; in the attention, the block input, norm1's output, qkv (3 x hidden), the contiguous
      q/k copy and its rotated copy (2 x hidden each, lines 411-458), the attention output and the
      projection: 11 x hidden. The larger of the two.
    Qwen2-VL (``vision.mlp == "quick_gelu"``), per patch (vLLM 0.13.0 model_executor/models/qwen2_vl.py;
    Qwen2VisionMLP, Qwen2VisionAttention and Qwen2VisionBlock are the same in 0.20.0-0.32.0, lines 243-443
    of 0.20.0, and the tower runs eagerly, without support_torch_compile):
    - the dummy pixel values as above (0.13.0 multimodal/processing.py line 1083 casts them to the model
      dtype), held by profile_run (gpu_model_runner.py lines 4460-4471);
    - in the MLP (Qwen2VisionBlock.forward line 454, Qwen2VisionMLP.forward lines 275-279): the block input,
      norm2's LayerNorm output (the module call's argument until the MLP returns), fc1's output
      (intermediate = int(embed_dim x mlp_ratio), line 419) and QuickGELU's x * sigmoid(1.702 x)
      (model_executor/layers/activation.py line 352): 1.702 x and its sigmoid live next to fc1's output,
      then the sigmoid and the product: 2 x hidden + 3 x intermediate. QuickGELU is a CustomOp, and a
      start that compiles with Inductor (the default; not enforce_eager) sets custom_ops to "none"
      (config/vllm.py lines 658-665; custom_op.py dispatch_forward lines 92-99), so this native path
      runs. With enforce_eager its CUDA kernel holds one intermediate less (forward_cuda, lines 354-357);
      the native peak is charged either way (the safe side);
    - in the attention (Qwen2VisionAttention.forward lines 363-400): the block input, norm1's output,
      qkv (3 x hidden; q, k, v are views), the concatenated q/k (line 380) and its rotated copy (lines
      381-385, ApplyRotaryEmb enforce-enabled: vllm_flash_attn's apply_rotary_emb, a new tensor), the
      flash-attention output (the ViT backend on compute capability >= 8, platforms/cuda.py lines
      382-393; attention/ops/vit_attn_wrappers.py reshapes without copies) and the projection:
      11 x hidden, as for Qwen2.5-VL.
    The larger of the two; for Qwen2-VL-7B (embed_dim 1,280, mlp_ratio 4) the MLP's 17,920 values. The
    attention's 11 x hidden is the one of 0.12 on; 0.11 rotates q and k in float32 and peaks at 20 x hidden,
    0.9 at 13 x hidden (qwen_vl_attention_peak_hidden), for both towers.
    The encoder outputs (merged tokens x out_hidden_size, the merger's output: vision_config hidden_size
    for Qwen2-VL) are cached through the text dummy run with the pixel values (gpu_model_runner.py lines
    6225-6240 of 0.23.0, 4469-4486 of 0.13.0): that is ``held``.
    """
    vision = arch.vision
    patches = qwen_vl_dummy_patches(arch, max_model_len, tokens, seqs, version)
    if vision is None or patches == 0:
        return 0.0, 0.0
    b = arch.dtype_bytes
    pixels = vision.in_channels * vision.temporal_patch_size * vision.patch_size**2
    h, inter = vision.hidden_size, vision.intermediate_size
    mlp = 2 * h + 3 * inter if vision.mlp == "quick_gelu" else 5 * h + 3 * inter
    block = max(mlp, qwen_vl_attention_peak_hidden(version) * h)
    outputs = patches // vision.spatial_merge_size**2 * vision.out_hidden_size
    return float(patches * (pixels + block) * b), float((patches * pixels + outputs) * b)


def qwen_vl_attention_peak_hidden(version: Optional[str]) -> int:
    """The Qwen2-VL/2.5-VL vision attention's peak per patch, in multiples of the tower's hidden size, for ``version``.

    Live in the attention call: the block input, norm1's output and qkv (5 x hidden), then per release
    - 0.12.0 on (qwen2_vl.py lines 280-287 and 388-398 of 0.12.0; 0.13.0 ApplyRotaryEmb, enforce-enabled, lines
      380-385; 0.20.0-0.33.0 likewise): q and k concatenated (2 x hidden; Qwen2.5-VL's reshape copies the
      same) and rotated in the model dtype into a new tensor (2 x hidden), then the attention output and the
      projection: 11 x hidden (the releases 0.14-0.19, between two readings, are taken the same);
    - 0.11.0 (qwen2_vl.py lines 275-284 apply_rotary_pos_emb_vision, 379-384; qwen2_5_vl.py lines 350-355):
      q, k and v copied contiguous (3 x hidden, line 350), q and k concatenated (2 x hidden), that cast to
      float32 (t.float(), 4 x hidden), vllm_flash_attn's rotary output in float32 (torch.empty_like of it,
      vllm_flash_attn/ops/triton/rotary.py line 188; 4 x hidden) and its cast back (type_as, 2 x hidden):
      20 x hidden, while the rotation runs (the 0.10 releases, not read, are taken the same: the larger);
    - 0.9.0.1 (qwen2_vl.py lines 231-240 and 319-323; qwen2_5_vl.py lines 297-301): the contiguous copies,
      then q and k rotated one at a time in float32 (2 + 2 + 1 x hidden each): 13 x hidden; the older
      releases are taken the same.
    An unknown release takes the largest, 20 (the safe side).
    """
    release = parse_release(version)
    if release is None or (0, 10) <= release < (0, 12):
        return QWEN_VL_FP32_ROTARY_ATTENTION_PEAK_HIDDEN
    if release < (0, 10):
        return QWEN_VL_SPLIT_ROTARY_ATTENTION_PEAK_HIDDEN
    return QWEN_VL_ATTENTION_PEAK_HIDDEN
