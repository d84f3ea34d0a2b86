"""G47: a Secret's ``data`` values are base64, as the API server decodes them.

core/v1 ``Secret.data`` is ``map[string][]byte`` (k8s.io/api core/v1 types.go: "The serialized form of the secret data
is a base64 encoded string"), and a ``[]byte`` is read from JSON with ``base64.StdEncoding`` (Go encoding/json
decode.go literalStore, kept by the API server's sigs.k8s.io/json): a value with a character outside the standard
alphabet (``*``, ``-``, ``_``, a space) or wrong padding fails to decode, and the request is refused before any
validation ("illegal base64 data at input byte N"). A value masked before publishing (``eyJhdXRoc****fX0=``) is such a
value. Every pod that reads the Secret (``secretKeyRef``, an ``envFrom``, a volume, ``imagePullSecrets``) then fails
with CreateContainerConfigError or cannot pull.

A ``kubernetes.io/dockerconfigjson`` Secret must also hold ``.dockerconfigjson`` whose decoded bytes are JSON
(kubernetes pkg/apis/core/validation/validation.go ValidateSecret, case SecretTypeDockerConfigJSON:
``json.Unmarshal`` of the value, field.Invalid otherwise).

``stringData`` takes any text and is not judged. A value that is a template placeholder (``${TOKEN}``,
``{{ .Values.token }}``, ``<base64 token>``) is advice: the file is a template some tool fills before it is applied.
A Secret a Pulumi program declares (it has a URN) is not judged: the engine may show its values redacted.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Iterator

from policies.framework import Policy, Resource, unproven
from policies.kube import as_dict

SECRET_TYPE = "kubernetes:core/v1:Secret"
_PLACEHOLDER_STARTS = ("$", "{{", "<")
_DOCKER_CONFIG_JSON = "kubernetes.io/dockerconfigjson"


def decode(value: str) -> bytes | None:
    """The bytes Go's base64.StdEncoding decodes from ``value`` (it skips CR and LF), or None where it fails."""
    try:
        return base64.b64decode(value.replace("\r", "").replace("\n", ""), validate=True)
    except (binascii.Error, ValueError):
        return None


def _values(resource: Resource) -> Iterator[tuple[str, str]]:
    for key, value in as_dict(resource.props.get("data")).items():
        if isinstance(key, str) and isinstance(value, str):
            yield key, value


def _check(resource: Resource, config: dict) -> list[str]:
    if resource.urn:
        return []  # a Pulumi program's Secret: values come from the stack's config, possibly redacted here
    found: list[str] = []
    for key, value in _values(resource):
        if decode(value) is not None:
            continue
        text = (
            f"data.{key} is not valid base64 ({_why(value)}); the API server cannot decode it and refuses the "
            f"Secret, so every pod reading it fails (CreateContainerConfigError, or no image pull)"
        )
        if value.strip().startswith(_PLACEHOLDER_STARTS):
            found.append(unproven(f"{text}: it is a placeholder; fill it with the base64 value, or use stringData"))
        else:
            found.append(
                f"{text}; put the real base64 value (or plain text under stringData), or create the Secret at deploy time"
            )
    if resource.props.get("type") == _DOCKER_CONFIG_JSON:
        raw = as_dict(resource.props.get("data")).get(".dockerconfigjson")
        decoded = decode(raw) if isinstance(raw, str) else None
        if decoded is not None and not _is_json(decoded):
            found.append(
                "data..dockerconfigjson decodes to text that is not JSON; the API server refuses a "
                "kubernetes.io/dockerconfigjson Secret whose config does not parse, so no pod can pull with it"
            )
    return found


_ALPHABET = re.compile(r"[^A-Za-z0-9+/=\r\n]")


def _why(value: str) -> str:
    """Where the value stops being base64, in Go's terms, without a character of the value (a secret's text never
    appears in a report, not even a prefix)."""
    bad = _ALPHABET.search(value)
    if bad:
        return f"illegal base64 data at input byte {bad.start()}: a character outside the standard alphabet"
    return "wrong length or padding"


def _is_json(data: bytes) -> bool:
    try:
        json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return False
    return True


POLICY = Policy(
    name="secret-data-base64",
    description="Every value under a Secret's data is valid base64 (the API server refuses the Secret otherwise).",
    catalog="G47",
    severity="high",
    enforcement="mandatory",
    remediation_steps=(
        "Put the base64 encoding of the real value under data (`base64 -w0`), or the plain value under stringData; "
        "better, create the Secret at deploy time (External Secrets, a SealedSecret, `kubectl create secret`) and keep "
        "masked copies out of the manifests."
    ),
    resource_types=(SECRET_TYPE,),
    check_resource=_check,
    rationale=(
        "core/v1 Secret.data is map[string][]byte; JSON carries a []byte as base64.StdEncoding text (Go encoding/json "
        "decode.go literalStore), so the API server refuses a Secret whose value does not decode, and "
        "pkg/apis/core/validation ValidateSecret refuses a kubernetes.io/dockerconfigjson Secret whose decoded config "
        "is not JSON. Pods that read the Secret then fail with CreateContainerConfigError."
    ),
)
