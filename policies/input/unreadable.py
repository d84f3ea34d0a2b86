"""What `policies check` could not read, as resources the S27 policies report on.

The reader (policies/manifests.py) records each file, or document of a multi-document file, that it could
not check; `policies check` hands each one to the pack as a resource of type UNREADABLE_TYPE, so the finding
goes through the same enforcement levels, config and report formats (text, JSON, Markdown, SARIF) as any
other. The Pulumi engine never produces this type.
"""

from __future__ import annotations

import os
from typing import Any

UNREADABLE_TYPE = "llm-serving:manifests:Unreadable"


def unreadable_props(file: str, document: Any, line: int, why: str, kind: str, repeats: tuple = ()) -> dict:
    """The props of an unreadable file's resource (what the S27 policies and G97 read)."""
    props = {"file": file, "document": document, "line": line, "why": why, "kind": kind}
    if repeats:
        props["repeats"] = repeats
    return props


def message(props: dict) -> str:
    """The finding: where, and why nothing there was checked (or, for a template read best-effort, how it was read)."""
    where = "the file" if props.get("document") is None else f"document {props['document']}"
    if props.get("kind") == "template-read":  # read best-effort: its objects were checked (policies.manifests)
        return f"{where} is {props.get('why')}"
    if props.get("kind") in ("invalid-read", "repeated-read"):  # read best-effort (policies/reading/salvage.py)
        return f"{where} {props.get('why')}"
    return f"{where} was not checked: {props.get('why')}"


def kustomization_read(resources: Any) -> bool:
    """True when the run reads a kustomization (an object of kind Kustomization, or a file holding no object handed over
    as UNREADABLE_TYPE): it may generate ConfigMaps and Secrets under hashed names no file writes, and patch objects
    inline (ports included), so what the files state of them is not what is applied."""
    from policies.reading.kustomize import KUSTOMIZATION_FILES

    return any(
        r.type.endswith(":Kustomization")  # one written with apiVersion and kind is read as an object
        or (
            r.type == UNREADABLE_TYPE
            and isinstance(r.props, dict)
            and os.path.basename(str(r.props.get("file"))) in KUSTOMIZATION_FILES
        )
        for r in resources
    )
