"""A model's architecture as far as vLLM's memory accounting needs it, read from config.json.

One parser serves both the catalogue (which stores verbatim config.json subsets) and users who
pass their own config.json, so a catalogue model and a hand-given one are sized the same way.
Key names follow Hugging Face transformers' configs; where a family nests its text model
(Gemma-3, Llama-4, Qwen-VL: ``text_config``) the nested config is used.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Mapping, Optional

from ..errors import format_value

GIB = 1024**3

_DTYPE_BYTES = {"float32": 4, "float": 4, "float16": 2, "half": 2, "bfloat16": 2, "fp8": 1, "float8_e4m3fn": 1}


class ArchitectureError(ValueError):
    """config.json lacks a field the memory model needs, or holds a nonsensical one."""


@dataclass(frozen=True)
class LayerGroup:
    """Attention layers that share one KV layout: ``window`` is None for full attention."""

    layers: int
    window: Optional[int]


@dataclass(frozen=True)
class VisionEncoder:
    """A Qwen2-VL or Qwen2.5-VL vision tower as config.json's ``vision_config`` states it (what its profile run allocates).

    ``max_pixels`` is the image processor's largest image (preprocessor_config.json "max_pixels";
    transformers' Qwen2VLImageProcessor default 12,845,056 = 16,384 merged tokens of 28 x 28 pixels,
    which vLLM's profile takes as the image with the most features). ``mlp`` is the block's MLP:
    "gated" for Qwen2.5-VL (gate_up, SiLU-and-mul, down; RMSNorm), "quick_gelu" for Qwen2-VL (fc1 to
    embed_dim x mlp_ratio, QuickGELU, fc2; LayerNorm). For Qwen2-VL, vision_config names the tower's width
    ``embed_dim`` and the merger's output ``hidden_size``; they are stored here as hidden_size and
    out_hidden_size, and intermediate_size is int(embed_dim x mlp_ratio), as vLLM computes it
    (model_executor/models/qwen2_vl.py Qwen2VisionBlock, line 419 of 0.13.0, 409 of 0.20.0).
    """

    hidden_size: int
    intermediate_size: int
    out_hidden_size: int
    patch_size: int
    spatial_merge_size: int
    temporal_patch_size: int
    in_channels: int = 3
    max_pixels: int = 12845056
    mlp: str = "gated"


@dataclass(frozen=True)
class Architecture:
    """The facts of one model that decide its GPU memory in vLLM."""

    model_type: str
    num_layers: int
    hidden_size: int
    intermediate_size: int
    num_attention_heads: int
    num_kv_heads: int
    head_dim: int
    vocab_size: int
    max_position_embeddings: int
    checkpoint_dtype: str
    tie_word_embeddings: bool
    # Attention layer groups: full attention and sliding windows (hybrid models).
    layer_groups: tuple[LayerGroup, ...]
    # MLA (DeepSeek-V2/V3): one latent of kv_lora_rank + rope dim per token and layer.
    kv_lora_rank: Optional[int] = None
    qk_rope_head_dim: Optional[int] = None
    # MLA's projections (the simulator's FLOPs; the KV cache needs only the two above): the query's low-rank width
    # (0: a full-rank query), and each head's no-rope query/key and value widths.
    q_lora_rank: int = 0
    qk_nope_head_dim: int = 0
    v_head_dim: int = 0
    # Mixture of experts: routed experts and how many each token visits.
    num_experts: int = 0
    experts_per_token: int = 0
    moe_intermediate_size: int = 0
    # DeepSeek-V2/V3: the first layers keep a dense MLP (first_k_dense_replace), and every MoE layer adds shared experts
    # (n_shared_experts, each moe_intermediate_size wide) that every token passes through.
    first_dense_layers: int = 0
    shared_experts: int = 0
    quant_method: Optional[str] = None
    # quantization_config.weight_block_size: block-scaled FP8 (DeepSeek-V3/R1, Qwen3 -FP8: 128 x 128 weight blocks with
    # an activation scale per 128 elements) rather than one scale per tensor or channel. None: not block-scaled.
    weight_block_size: Optional[tuple[int, int]] = None
    # Qwen-VL's dynamic-resolution vision encoder, which vLLM also profiles on its largest
    # inputs (gigabytes; fixed-size encoders such as Gemma-3's SigLIP cost little).
    has_dynamic_vision_encoder: bool = False
    # The vision tower's shape where config.json gives a Qwen2-VL or Qwen2.5-VL vision_config (memory.py
    # derives its profile peak from it); None: the fixed VISION_ENCODER_PROFILE_GIB is charged instead.
    vision: Optional[VisionEncoder] = None
    # The longest max_model_len vLLM accepts without VLLM_ALLOW_LONG_MAX_MODEL_LEN: the position
    # embeddings, stretched by a yarn/linear/dynamic rope scaling factor (llama3/longrope: not).
    max_model_len_limit: int = 0

    @property
    def is_mla(self) -> bool:
        """True when the KV cache holds a shared latent instead of per-head K and V."""
        return self.kv_lora_rank is not None

    @property
    def is_hybrid(self) -> bool:
        """True when some layers attend over a sliding window only."""
        return any(g.window is not None for g in self.layer_groups)

    @property
    def dtype_bytes(self) -> int:
        """Bytes per element of the unquantized activations and of an "auto" KV cache."""
        return _DTYPE_BYTES.get(self.checkpoint_dtype, 2) if self.checkpoint_dtype != "float32" else 2

    def embedding_bytes(self) -> int:
        """Bytes of the input embedding (and of the LM head, which has the same shape)."""
        return self.vocab_size * self.hidden_size * self.dtype_bytes


def _text_config(config: Mapping[str, Any]) -> Mapping[str, Any]:
    nested = config.get("text_config")
    if isinstance(nested, Mapping) and "num_hidden_layers" in nested:
        merged = dict(nested)
        for key in ("torch_dtype", "dtype", "tie_word_embeddings", "quantization_config"):
            if key not in merged and key in config:
                merged[key] = config[key]
        return merged
    return config


# No real model comes near this; larger values are corrupt files (and would overflow the math).
_MAX_DIMENSION = 1 << 40
# Real rope scalings stretch a context by up to ~40x (DeepSeek-V3 yarn); far larger is a corrupt file.
_MAX_ROPE_FACTOR = 1 << 20


def _int(cfg: Mapping[str, Any], *keys: str, default: Any = None, required: bool = True) -> Any:
    for key in keys:
        value = cfg.get(key)
        if value is not None:
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= _MAX_DIMENSION:
                raise ArchitectureError(f"config.json {key} = {format_value(value)}: must be a whole number between 0 and 2^40")
            return int(value)
    if required and default is None:
        raise ArchitectureError(f"config.json lacks {keys[0]}")
    return default


def _bool(cfg: Mapping[str, Any], key: str) -> bool:
    value = cfg.get(key, False)
    if value is None:
        return False
    if not isinstance(value, bool):
        raise ArchitectureError(f"config.json {key} = {format_value(value)}: must be true or false")
    return value


def parse_config(config: Mapping[str, Any]) -> Architecture:
    """Read the memory-relevant facts from a Hugging Face config.json mapping."""
    if not isinstance(config, Mapping):
        raise ArchitectureError("config.json must hold a JSON object")
    cfg = _text_config(config)
    layers = _int(cfg, "num_hidden_layers", "n_layer", "num_layers")
    hidden = _int(cfg, "hidden_size", "d_model", "n_embd")
    heads = _int(cfg, "num_attention_heads", "n_head")
    if not layers or not hidden or not heads:
        raise ArchitectureError("config.json num_hidden_layers, hidden_size and num_attention_heads must be > 0")
    kv_heads = _int(cfg, "num_key_value_heads", "num_kv_heads", default=heads, required=False)
    head_dim = _int(cfg, "head_dim", default=hidden // heads, required=False) or hidden // heads
    if head_dim == 0:
        # hidden_size < num_attention_heads: a head would have no dimension (and the KV math divides by it).
        raise ArchitectureError(
            f"config.json hidden_size = {hidden} is smaller than num_attention_heads = {heads}; "
            "a head needs at least one dimension (set head_dim or fix the file)"
        )
    vocab = _int(cfg, "vocab_size")
    inter = _int(cfg, "intermediate_size", "ffn_dim", default=4 * hidden, required=False)
    max_pos = _int(cfg, "max_position_embeddings", "max_seq_len", "n_positions", default=4096, required=False)
    dtype = str(cfg.get("torch_dtype") or cfg.get("dtype") or "bfloat16")
    quant = cfg.get("quantization_config")
    quant_method = str(quant.get("quant_method")) if isinstance(quant, Mapping) and quant.get("quant_method") else None
    block = _block_size(quant)

    kv_lora = _int(cfg, "kv_lora_rank", default=0, required=False) or None
    rope_dim = _int(cfg, "qk_rope_head_dim", default=0, required=False) or None
    if kv_lora is not None and rope_dim is None:
        raise ArchitectureError("config.json has kv_lora_rank (MLA) but lacks qk_rope_head_dim")

    experts = _int(cfg, "num_local_experts", "n_routed_experts", "num_experts", default=0, required=False)
    per_token = _int(cfg, "num_experts_per_tok", "num_experts_per_token", default=0, required=False)
    moe_inter = _int(cfg, "moe_intermediate_size", default=inter if experts else 0, required=False)
    first_dense = min(layers, _int(cfg, "first_k_dense_replace", default=0, required=False)) if experts else 0
    shared = _int(cfg, "n_shared_experts", default=0, required=False) if experts else 0

    return Architecture(
        model_type=str(cfg.get("model_type") or config.get("model_type") or "unknown"),
        num_layers=layers,
        hidden_size=hidden,
        intermediate_size=inter,
        num_attention_heads=heads,
        num_kv_heads=max(1, kv_heads),
        head_dim=head_dim,
        vocab_size=vocab,
        max_position_embeddings=max_pos,
        checkpoint_dtype=dtype,
        tie_word_embeddings=_bool(cfg, "tie_word_embeddings"),
        layer_groups=_layer_groups(cfg, layers),
        kv_lora_rank=kv_lora,
        qk_rope_head_dim=rope_dim,
        q_lora_rank=_int(cfg, "q_lora_rank", default=0, required=False) if kv_lora else 0,
        qk_nope_head_dim=_int(cfg, "qk_nope_head_dim", default=0, required=False) if kv_lora else 0,
        v_head_dim=_int(cfg, "v_head_dim", default=0, required=False) if kv_lora else 0,
        num_experts=experts,
        experts_per_token=per_token,
        moe_intermediate_size=moe_inter,
        first_dense_layers=first_dense,
        shared_experts=shared,
        quant_method=quant_method,
        weight_block_size=block,
        max_model_len_limit=_max_len_limit(cfg, max_pos),
        has_dynamic_vision_encoder=bool(re.match(r"^qwen\d*(_\d+)?_vl", str(config.get("model_type") or ""))),
        vision=_vision_encoder(config),
    )


def _block_size(quant: Any) -> Optional[tuple[int, int]]:
    """quantization_config.weight_block_size as two whole numbers; None where absent."""
    raw = quant.get("weight_block_size") if isinstance(quant, Mapping) else None
    if raw is None:
        return None
    if not isinstance(raw, list) or len(raw) != 2 or any(isinstance(v, bool) or not isinstance(v, int) or v <= 0 for v in raw):
        raise ArchitectureError(
            f"config.json quantization_config.weight_block_size = {format_value(raw)}: must be two whole numbers > 0"
        )
    return (raw[0], raw[1])


def _vision_encoder(config: Mapping[str, Any]) -> Optional[VisionEncoder]:
    """The Qwen2-VL or Qwen2.5-VL vision tower of ``config``; None for any other model or an incomplete vision_config.

    Qwen2.5-VL's tower (gated MLP, RMSNorm; vllm/model_executor/models/qwen2_5_vl.py) and Qwen2-VL's (mlp_ratio,
    QuickGELU, LayerNorm; qwen2_vl.py) are read; Qwen3-VL's (deepstack) allocates differently and keeps the fixed
    charge.
    """
    vision = config.get("vision_config")
    model_type = config.get("model_type")
    if model_type not in ("qwen2_5_vl", "qwen2_vl") or not isinstance(vision, Mapping):
        return None
    shape = ("patch_size", "spatial_merge_size", "temporal_patch_size")
    if model_type == "qwen2_5_vl":
        keys = ("hidden_size", "intermediate_size", "out_hidden_size", *shape)
    else:
        keys = ("embed_dim", "mlp_ratio", "hidden_size", *shape)
    if any(vision.get(k) is None for k in keys):
        return None
    channels = _int(vision, "in_channels", "in_chans", default=3, required=False) or 3
    ratio = vision.get("mlp_ratio") if model_type == "qwen2_vl" else None
    if model_type == "qwen2_vl" and (isinstance(ratio, bool) or not isinstance(ratio, (int, float)) or not 0 < ratio <= 1024):
        raise ArchitectureError(f"config.json vision_config mlp_ratio = {format_value(ratio)}: must be a number in (0, 1024]")
    whole = [k for k in keys if k != "mlp_ratio"]
    fields = {k: _int(vision, k) for k in whole}
    if any(v <= 0 for v in fields.values()):
        raise ArchitectureError(f"config.json vision_config {', '.join(whole)} must all be > 0")
    if ratio is None:
        return VisionEncoder(**fields, in_channels=channels)
    width = fields.pop("embed_dim")
    inter = int(width * ratio)
    if inter <= 0:
        raise ArchitectureError(
            f"config.json vision_config embed_dim x mlp_ratio = {width} x {format_value(ratio)}: must be >= 1"
        )
    return VisionEncoder(
        hidden_size=width,
        intermediate_size=inter,
        out_hidden_size=fields.pop("hidden_size"),
        **fields,
        in_channels=channels,
        mlp="quick_gelu",
    )


def _max_len_limit(cfg: Mapping[str, Any], max_pos: int) -> int:
    """vLLM's derived maximum length (config/model.py _get_and_verify_max_len, simplified)."""
    scaling = cfg.get("rope_scaling")
    if not isinstance(scaling, Mapping):
        return max_pos
    kind = str(scaling.get("rope_type") or scaling.get("type") or "")
    factor = scaling.get("factor")
    if kind not in ("yarn", "linear", "dynamic") or isinstance(factor, bool) or not isinstance(factor, (int, float)):
        return max_pos
    if not 0 < factor <= _MAX_ROPE_FACTOR:  # NaN fails this too
        raise ArchitectureError(
            f"config.json rope_scaling.factor = {format_value(factor)}: must be a number in (0, {_MAX_ROPE_FACTOR}]"
        )
    if factor <= 1:
        return max_pos
    base = max_pos
    if kind == "yarn":
        base = _int(scaling, "original_max_position_embeddings", default=max_pos, required=False)
    return int(base * factor)


def _layer_groups(cfg: Mapping[str, Any], layers: int) -> tuple[LayerGroup, ...]:
    """Split the layers into full-attention and sliding-window groups, as vLLM's hybrid allocator does."""
    window = _int(cfg, "sliding_window", default=0, required=False) or None
    if window and window >= _int(cfg, "max_position_embeddings", "max_seq_len", "n_positions", default=4096, required=False):
        # A window as long as the model's positions never slides: phi-4 ships sliding_window 16384
        # = max_position_embeddings, and vLLM sizes it as full attention (llm-d-planner 0.19 log
        # row pl32: 29.49x at 8,192 tokens = 241,568 tokens / 8,192).
        window = None
    types = cfg.get("layer_types")
    if isinstance(types, list) and len(types) == layers and window:
        sliding = sum(1 for t in types if "sliding" in str(t) or "local" in str(t))
        return _groups(layers - sliding, sliding, window)
    if window is None:
        return (LayerGroup(layers, None),)
    # Gemma-2/3 style: every Nth layer is global (sliding_window_pattern = N). Gemma-2 configs
    # carry no pattern: its layers alternate local and global (transformers' Gemma2 modelling).
    pattern = _int(cfg, "sliding_window_pattern", default=2 if cfg.get("model_type") == "gemma2" else 0, required=False)
    if pattern > 1:
        full = layers // pattern
        return _groups(full, layers - full, window)
    # Qwen2/3 ship sliding_window but only use it when use_sliding_window is true,
    # and then only above max_window_layers.
    if "use_sliding_window" in cfg:
        if not cfg.get("use_sliding_window"):
            return (LayerGroup(layers, None),)
        below = _int(cfg, "max_window_layers", default=layers, required=False)
        return _groups(min(below, layers), max(0, layers - below), window)
    # Mistral-7B-v0.1 style: every layer slides. Sizing it as full attention is the safe side
    # when the window exceeds max_model_len; the memory model clamps windows to the request.
    return (LayerGroup(layers, window),)


def _groups(full: int, sliding: int, window: int) -> tuple[LayerGroup, ...]:
    out = []
    if full:
        out.append(LayerGroup(full, None))
    if sliding:
        out.append(LayerGroup(sliding, window))
    return tuple(out)
