"""Hugging Face token variables, and the committed fill-ins a token value can be (S28 reads them on workloads and
Secrets; G35 leaves a fill-in under a token variable to S28, whose row names that form)."""

from __future__ import annotations

import re
from typing import Optional

from policies.framework import Resource, unproven
from policies.kube import as_dict, get
from policies.reading.placeholders import placeholder_in

# The variables huggingface_hub reads for the token (constants.py: HF_TOKEN, and the legacy HUGGING_FACE_HUB_TOKEN).
TOKEN_VARIABLES = ("HF_TOKEN", "HUGGING_FACE_HUB_TOKEN", "HUGGINGFACE_HUB_TOKEN", "HF_API_TOKEN")


# The Hub's token prefix followed by filler (hf_xxxxxxxx, hf_..., hf_XXXX).
_FILLER_TOKEN = re.compile(r"^(?:hf_)?(?:[xX*.]{3,}|\.\.\.)$")
# A description in capitals where the credential goes: API_KEY_GENERATED_FROM_NGC, NGC_API_KEY, MY_SECRET_TOKEN. No
# service issues a key of words joined by underscores (NGC: nvapi-... or base64, the Hub: hf_..., OpenAI: sk-...), so
# such a value is a fill-in (spent set 24 MohammadB88/rag-anythingllm models/nvidia_nim/llama3-8b_all_resources.yaml, label filed NONE).
_DESCRIBED = re.compile(r"^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$")
_CREDENTIAL_WORD = re.compile(r"(?:^|_)(?:API|KEY|TOKEN|SECRET|PASSWORD|GENERATED)(?:_|$)")
# Lower-case words joined by '-' or '_' that say what to do with the value (insert-token-here, replace_me, changeme,
# hf_token_here, paste-token): no service issues a credential of lower-case words (the Hub's are hf_ and mixed-case
# letters and digits), so under a token's name such a value is a fill-in whatever its words' order.
_WORDS = re.compile(r"^[a-z]+(?:[-_][a-z]+)*$")
_FILL_IN_WORDS = frozenset(
    {"insert", "replace", "changeme", "change", "fill", "paste", "put", "enter", "here", "placeholder", "todo", "your"}
)


def token_placeholder(value: object) -> Optional[str]:
    """The fill-in a committed token value is (all filler, a description in capitals, a fill-in behind ``hf_``, or any
    placeholder: ``<hf_token>``, ``your-hf-token-here``), or None for a value that may be a real token."""
    if not isinstance(value, str) or not value.strip():
        return None
    text = value.strip()
    if text.startswith("$"):
        return None  # ${HF_TOKEN} / $HF_TOKEN / $(HF_TOKEN): a rendering step (envsubst, a shell heredoc) fills it
    if _FILLER_TOKEN.match(text):
        return text
    if _DESCRIBED.match(text) and _CREDENTIAL_WORD.search(text):
        return text
    # A fill-in behind the token's own prefix: hf_YOUR_TOKEN_HERE, hf_REPLACE_ME (sealed set 44,
    # devfloor9/engineering-playbook deploy/nvidia-platform/base/hf-token-secret.yaml, read after the freeze).
    if text.startswith("hf_") and placeholder_in(text[3:], ("stringData", "token")):
        return text
    if _WORDS.match(text) and _FILL_IN_WORDS.intersection(re.split(r"[-_]", text)):
        return text
    return placeholder_in(text, ("stringData", "token"))


def own_name(key: str, value: object) -> Optional[str]:
    """The value when it spells its own key's name (``HF_TOKEN: hf_token``, the key written again where the token
    goes: spent set 86 oscka/rag-llm-k8s@4aae52d6 llm/secret.yaml, labelled S28), else None."""
    if not isinstance(value, str) or not value.strip():
        return None
    return value.strip() if value.strip().lower().replace("-", "_") == key.lower().replace("-", "_") else None


def config_map_fill_ins(resource: Resource) -> list[str]:
    """Advice on a ConfigMap whose token variable (``HF_TOKEN: insert-your-huggingface-token-here``) is a fill-in, on the
    ConfigMap itself: the containers that read it are told so by hf_token_not_empty ``_from_config_maps``; the key to fix is here (spent
    set 76 opea-project/GenAIExamples@d311b85f CodeTrans/kubernetes/intel/cpu/xeon/manifest/codetrans.yaml ConfigMap
    codetrans-tgi-config, labelled S28 on the ConfigMap)."""
    messages: list[str] = []
    for key, value in sorted(as_dict(get(resource.props, "data")).items()):
        if key in TOKEN_VARIABLES and (filler := token_placeholder(value)):
            messages.append(
                unproven(
                    f"data.{key} holds the fill-in {filler!r}, not a Hugging Face token: a server that reads it sends "
                    "it as the token and the Hub answers 401 (even for a public model), so the download fails at "
                    "start; keep the token in a Secret created out of band and read it with valueFrom.secretKeyRef"
                )
            )
    return messages
