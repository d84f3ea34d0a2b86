"""Words that name a model server in the names people give objects: the engines' usual short names, "llm" and model
families served on GPUs. Never proof of a server: the rules that read them (an autoscaler whose target is in no file
read, S6 and S8; an internet-facing ALB with no model server of the files behind it, G32) weigh them as a hint."""

from __future__ import annotations

import re

SERVER_WORD = re.compile(
    r"(?<![a-z0-9])(vllm|sglang|tgi|text-generation(?:-inference)?|triton|tensorrt-llm|trtllm|trt-llm|nim|llms?|ollama"
    r"|lmdeploy|llama|mistral|mixtral|qwen|gemma|deepseek|falcon|gpt-oss|inference)(?![a-z])",
    re.IGNORECASE,
)
