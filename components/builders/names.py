"""Physical names that must fit a service's limit and stay the same from one run to the next.

A name built from the cluster's name (EKS allows 100 characters) can exceed what the service
takes. Cutting it at the limit is not enough: two names that differ only past the cut would
collide, and the part cut is often the one that tells them apart (``...-<model>-s3``). A name
over the limit keeps its first characters and ends with 8 hex digits of its SHA-256, so it is
unique, the same on every run, and unchanged whenever it already fits.
"""

from __future__ import annotations

import hashlib

# IAM: "Role name: 64 characters" (IAM User Guide, IAM and AWS STS quotas, "IAM name requirements").
IAM_ROLE_NAME = 64
# EventBridge PutRule Name: 1-64 characters (EventBridge API Reference, PutRule).
EVENT_RULE_NAME = 64
# SQS CreateQueue QueueName: up to 80 characters (SQS API Reference, CreateQueue).
SQS_QUEUE_NAME = 80
# Helm refuses a release name longer than 53 characters (helm/pkg/chartutil, ValidateReleaseName).
HELM_RELEASE_NAME = 53

_DIGEST = 8


def fit(name: str, limit: int) -> str:
    """``name`` if it fits ``limit`` characters; otherwise its first characters, '-' and 8 hex of its SHA-256."""
    if limit <= _DIGEST + 1:
        raise ValueError(f"a limit of {limit} leaves no room for a name and its digest")
    if len(name) <= limit:
        return name
    digest = hashlib.sha256(name.encode("utf-8")).hexdigest()[:_DIGEST]
    return f"{name[: limit - _DIGEST - 1].rstrip('-_.')}-{digest}"
