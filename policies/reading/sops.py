"""Whether a file is SOPS encrypted in place, one reading for every rule (S26 api-schema-valid, G35
no-literal-credential).

SOPS writes each encrypted leaf as ``ENC[AES256_GCM,data:...,type:str]`` (getsops/sops v3.9.0 aes/cipher.go L186) and
adds a top-level ``sops`` block, its ``Metadata``, which always carries ``mac``, ``lastmodified`` and ``version``
beside the key groups (stores/stores.go L28). Such a file is decrypted before it is applied (Flux's kustomize-controller
decryption, ksops, helm-secrets), which removes the block: the cluster never sees it, and its values are ciphertext.

The reading is the strict one: a ``sops`` key that is no such block (``sops: {note: encrypt me}``, none of the three
markers) is no SOPS file, so S26 still reports it as an unknown field and G35 still reads its values; a value that
is itself ciphertext (``ENC[``) is skipped by G35 on its own, block or not, so the strict reading adds no finding on
an encrypted value.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

# The prefix of every value SOPS encrypts (getsops/sops v3.9.0 aes/cipher.go L186).
CIPHERTEXT = "ENC["
_MARKERS = ("mac", "lastmodified", "version")


def sops_encrypted(props: Mapping[str, Any]) -> bool:
    """True when the document carries SOPS's top-level metadata block (a table holding mac, lastmodified or
    version)."""
    block = props.get("sops") if isinstance(props, Mapping) else None
    return isinstance(block, dict) and any(key in block for key in _MARKERS)
