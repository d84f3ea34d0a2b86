"""G1 (catalogue row 1): container images must be pinned to a version tag or a digest.

An untagged image pulls `:latest`, and `latest` moves: two replicas of one Deployment can run
different vLLM releases, and a rollback cannot return to what ran before.

A model server's image is also held to the moving tags its engine publishes (components/serving_engines.toml
moving_tags, each row citing where: SGLang's nightly `dev`, llama.cpp's `server-cuda` rebuilt from master), for
whichever engine of the table the container runs. A tag none of whose parts names a version, a date or a commit
(``sglang:glm5-hopper``, ``sglang:kimi-k3``) is a build label its owner can push again: advice, on model servers.
On any container, a tag with no number in it (``aihpi-provider``, ``rocm``) pulled with ``imagePullPolicy: Always``
is the newest build of a line at each pod start: advice (``v1``, ``cuda12``, ``0.6.3``, digests stay silent).

Images are read wherever the files name them: containers, an operator's image fields (policies/reading/field_images.py:
a NIMCache's ``modelPuller`` too), and a Kustomization's ``images`` entries, whose ``newTag`` kustomize writes into the
build's containers (an overlay's ``newTag: main``).
"""

from __future__ import annotations

import re
from typing import Optional

from components.images import image_tag, is_digest
from components.serving_engines import ENGINES, Engine
from policies.framework import UNKNOWN, Policy, Resource, unproven
from policies.kube import as_dict, as_list, container_label, containers, get, pod_specs, split_type, workload_types
from policies.operators import OPERATOR_TYPES, operator_server
from policies.reading.field_images import field_images
from policies.reading.placeholders import placeholder_in, placeholder_tag_only, written_images
from policies.reading.serving import engine_row, model_servers

# latest, then the branch-like tags CI pipelines move to each push (docker/metadata-action: a branch's name, edge for
# the default branch, nightly for scheduled builds; the rest are the usual channel names, stable among them: session 24
# review R5). ``local`` is the tag a local build gives its image (``docker build -t inference:local``), re-tagged at each
# build and pulled from no registry that pins it (spent set 79 DemecosChambers/GPUArchitectureAWS@57c81b41
# k8s/apps/inference.yaml, ``inference:local``, label G1).
MOVING_TAGS = (
    "latest",
    "main",
    "master",
    "nightly",
    "dev",
    "develop",
    "edge",
    "head",
    "canary",
    "unstable",
    "rolling",
    "stable",
    "local",
)
_FIX = "pin a version tag (ideally a digest, image@sha256:...)"
# Characters no image reference holds (distribution/reference grammar): a template's placeholder for one.
_PLACEHOLDER = re.compile(r"[<>${}\s]")


# A branch's build of one variant (LocalAI's master-cublas-cuda12, main-gpu): the branch name, a dash, then a word, not
# a date or version (main-2024.06.01 is one dated build and passes, and so does LiteLLM's main-v1.80.12, the release
# build its chart litellm-helm renders from main-<appVersion>: BerriAI/litellm deploy/charts/litellm-helm/templates/
# deployment.yaml:49@f77fbefc22e8).
_BRANCH_VARIANT = re.compile(r"^(?:main|master)-(?!v\d)[a-z]", re.IGNORECASE)
# A moving build word as one part of a longer tag (vllm/vllm-openai's cu130-nightly-x86_64, held-out set 8): moving
# unless another part is a version or a date (nightly-2024-06-01 and 0.9.0-nightly name one build).
_MOVING_PARTS = frozenset({"latest", "nightly"})
_VERSION_PART = re.compile(r"^v?\d+(?:\.\d+)+$|^\d{4,8}$|^v\d+$")
# A commit id names one build too: vLLM publishes a per-commit nightly image vllm/vllm-openai:nightly-<commit>, the
# full 40-hex id or a short one (nightly-d223c90), beside the moving nightly / nightly-aarch64. Hex with a digit in it.
_COMMIT_PART = re.compile(r"^(?=[a-f]*\d)[0-9a-f]{7,40}$")


_DATE_PART = re.compile(r"^\d{4,8}$|^\d{4}\.\d{1,2}\.\d{1,2}$")


def _moving_part(tag: str) -> bool:
    """True when a part of the tag is a moving build word and no part names one build: a version, a date or a commit
    (nightly-2024-06-01, 0.9.0-nightly). A latest part is moving beside a version too: ``v8-latest`` or ``2.4-latest`` is
    the newest build of a line, pushed again with each one (spent set 13, nghianx1211/ray-learning ray-v8-rayservice/
    rayservice.yaml, labelled G1); only a date or a commit pins it."""
    parts = [p for p in re.split(r"[-_+]", tag.lower()) if p]
    words = {word for part in parts for word in part.split(".") if word}
    if "latest" in words:
        return not any(_DATE_PART.match(p) or _COMMIT_PART.match(p) for p in parts)
    return bool(words & _MOVING_PARTS) and not any(_VERSION_PART.match(p) or _COMMIT_PART.match(p) for p in parts)


# A part of a tag that names one release or build: a dotted version (v0.5.0.post1, 2.41.0-py310), a v-number (v3), a
# number or date (20250801, 2024.06.01), a commit (a 7-40 character hex string with a digit in it), a build number
# (llama.cpp's release tags b6000).
_RELEASE_PART = re.compile(r"^v?\d+(?:\.\d+)+|^v\d+|^\d+$|^(?=[0-9a-f]*\d)[0-9a-f]{7,40}$|^r\d+|^b\d{3,}$")


def _build_label(tag: str) -> bool:
    """True for a tag none of whose parts names a release, a date or a commit (glm5-hopper, kimi-k3): a label a
    team moves to its next build, not a version."""
    parts = [p for p in re.split(r"[-_+]", tag.lower()) if p]
    if tag.lower() in MOVING_TAGS or _PLACEHOLDER.search(tag):
        return False  # the branch words are the config's (disallowedTags) to accept or refuse
    return bool(parts) and not any(_RELEASE_PART.match(p) for p in parts)


def _mutable(tag: str, disallowed: set[str], prefixes: tuple[str, ...]) -> bool:
    """True for a tag the policy config rejects, or a branch's variant build."""
    return tag.lower() in disallowed or tag.lower().startswith(prefixes) or bool(_BRANCH_VARIANT.match(tag))


def _literal_tag(image: str) -> object:
    """An image whose registry or repository holds a placeholder (``<YOUR-ACR-NAME>.azurecr.io/nim:latest``, which the
    other rules read as unknown), as written when its tag is literal: the tag is what the file pins whatever registry
    fills the placeholder. framework.UNKNOWN when the tag itself is a fill-in or there is none."""
    tag = image_tag(image)
    if tag is None or _PLACEHOLDER.search(tag) or placeholder_in(tag, ("image",)) is not None:
        return UNKNOWN
    return image


# An image marker of the engine table that names a publisher's repository (org/name, before any tag).
_REPOSITORY_MARKER = re.compile(r"^[a-z0-9][a-z0-9._-]*/[a-z0-9._-]+")


def _publisher_row(image: object) -> Optional[Engine]:
    """The engine row whose publisher's repository the image is (``ghcr.io/ggml-org/llama.cpp:full`` is llama.cpp's,
    whatever the container runs in it): its moving tags are that repository's, so they move under any command."""
    if not isinstance(image, str):
        return None
    repository = image.split("@", 1)[0].lower()
    if ":" in repository.rsplit("/", 1)[-1]:
        repository = repository.rsplit(":", 1)[0]
    for row in ENGINES:
        for marker in row.images:
            found = _REPOSITORY_MARKER.match(marker)
            if found and (repository == found.group(0) or repository.endswith("/" + found.group(0))):
                return row
    return None


def _images(resource: Resource) -> list[tuple[str, object, str, tuple[str, ...], object, bool]]:
    """(label, image, engine shown, the engine's moving tags, imagePullPolicy, whether it serves a model) of every
    container, and of the server an operator resource asks for; a container no engine row names has no tags of its
    own."""
    engines = {id(s.container): s.engine for s in model_servers(resource)}
    written = written_images(resource)
    found: list[tuple[str, object, str, tuple[str, ...], object, bool]] = []
    for path, podspec in pod_specs(resource):
        for c in containers(podspec, init=True, model=True):
            row = engine_row(engines.get(id(c), ""))
            shown, moving = (row.display, row.moving_tags) if row else ("", ())
            if row is None and (publisher := _publisher_row(c.get("image"))) is not None:
                # Only the publisher's own words (llama.cpp's full, light): the common ones keep their generic message.
                shown, moving = publisher.display, tuple(t for t in publisher.moving_tags if t not in MOVING_TAGS)
            label = container_label(path, c)
            image = _literal_tag(written[label]) if label in written else c.get("image")
            if isinstance(image, str) and placeholder_tag_only(image):
                image = UNKNOWN  # the other rules read its repository; the tag is S27's fill-in, not a build label
            found.append((label, image, shown, moving, c.get("imagePullPolicy"), id(c) in engines))
    if (server := operator_server(resource)) is not None:
        found.append((server.image_field, server.image, "", (), None, True))
    # An image an operator copies from a field of its own (substratus Server spec.image): judged as a container's.
    for field, image in field_images(resource):
        as_written = _literal_tag(image) if placeholder_in(image, ("image",)) is not None else image
        found.append((field, as_written, "", (), None, False))
    return found


_KUSTOMIZATION = ("kustomize.config.k8s.io", "Kustomization")


def _kustomized_tags(resource: Resource, disallowed: set[str], prefixes: tuple[str, ...]) -> list[str]:
    """A Kustomization's ``images`` entry that sets a moving ``newTag`` (an overlay's ``newTag: main``): kustomize
    writes that tag into every container image of the build named ``name`` (kubernetes-sigs/kustomize
    api/types/image.go Image{Name, NewName, NewTag, Digest}: "NewTag is the value used to replace the original tag";
    a ``digest`` wins over it), so the overlay runs whatever was pushed last under the tag (spent set 55
    anasgrt/llm-platform-poc deploy/overlays/prod/kustomization.yaml, newTag main for three images)."""
    found: list[str] = []
    for i, entry in enumerate(as_list(get(resource.props, "images"))):
        entry = as_dict(entry)
        name, tag = entry.get("newName") or entry.get("name"), entry.get("newTag")
        if entry.get("digest") or not isinstance(tag, (str, int, float)) or isinstance(tag, bool):
            continue
        tag = str(tag)
        if _PLACEHOLDER.search(tag) or not (_mutable(tag, disallowed, prefixes) or _moving_part(tag)):
            continue
        found.append(
            f"images[{i}] {name}: newTag {tag} is a tag that moves to each new build, and kustomize writes it into every "
            f"container image named {entry.get('name')} of the build, so replicas and rollbacks run whatever was pushed "
            f"last; set newTag to a version or a commit, or pin digest: sha256:..."
        )
    return found


def _check(resource: Resource, config: dict) -> list[str]:
    disallowed = {str(t).lower() for t in config["disallowedTags"]}
    prefixes = tuple(str(p).lower() for p in config["disallowedTagPrefixes"] if str(p))
    if split_type(resource.type) == _KUSTOMIZATION:
        return _kustomized_tags(resource, disallowed, prefixes)
    messages: list[str] = []
    for label, image, engine, moving, pull, serves in _images(resource):
        if not isinstance(image, str) or is_digest(image):
            continue
        tag = image_tag(image)
        if tag is None and _PLACEHOLDER.search(image):
            # "<image>", "${IMAGE}", "{{ .Values.image }}": a value the reader fills in, not a reference anything pulls.
            messages.append(unproven(f"{label}: image {image} is a placeholder; fill it with a version tag or a digest"))
        elif tag is None:
            messages.append(f"{label}: image {image} has no tag, so it pulls :latest, which moves; {_FIX}")
        elif tag.lower() in moving and (tag.lower() not in ("latest", "nightly") or not _mutable(tag, disallowed, prefixes)):
            # The engine's own word for a moving tag, where it has one (latest and nightly, every publisher's words,
            # only when the config does not already reject them as mutable).
            messages.append(
                f"{label}: image {image} uses {tag}, a tag {engine} moves to each new build (engine table "
                f"moving_tags), so replicas and rollbacks run whatever was pushed last; {_FIX}"
            )
        elif _mutable(tag, disallowed, prefixes) and not (pull == "Never" and tag.lower() == "local"):
            messages.append(f"{label}: image {image} uses the mutable tag {tag}; {_FIX}")
        elif _moving_part(tag):
            moves = "its latest part moves to each new build" if "latest" in tag.lower() else "no version or date in it"
            messages.append(f"{label}: image {image} uses {tag}, a moving build tag ({moves}); {_FIX}")
        elif pull == "Never" and not any(ch.isdigit() for ch in tag):
            # imagePullPolicy Never runs whatever image of that name the node holds (a locally built :local): no
            # registry pins it, and a node without it never starts the pod. A pre-loaded air-gapped image may be
            # deliberate, so this is advice.
            messages.append(
                unproven(
                    f"{label}: image {image} with imagePullPolicy Never and a tag naming no version is whatever "
                    f"image of that name each node holds (built or loaded there); {_FIX} and push it to a registry"
                )
            )
        elif pull == "Always" and not any(ch.isdigit() for ch in tag) and not _PLACEHOLDER.search(tag):
            # A tag with no number in it (aihpi-provider, rocm, gpu) names a line of builds, not one: with Always each
            # new pod pulls whatever was pushed under it last (imagePullPolicy "Always: every time the kubelet launches
            # a container, the kubelet queries the container image registry to resolve the name to an image digest",
            # kubernetes.io/docs/concepts/containers/images/#image-pull-policy). Spent set aihpi/litellm-k8s
            # base/litellm/deployment.yaml (ghcr.io/aihpi/tool-litellm:aihpi-provider, Always). Advice: one push may
            # be all it ever gets. A tag with a number (v1, cuda12, 0.6.3) may be a release line's name: not judged.
            messages.append(
                unproven(
                    f"{label}: image {image} uses {tag}, a tag with no version number in it, and imagePullPolicy Always "
                    f"pulls it again at each pod start, so replicas and rollbacks run whatever was pushed under it last; "
                    f"{_FIX}"
                )
            )
        elif serves and _build_label(tag):
            # A build label (held-out set 8: sglang:glm5-hopper) may be pushed once and never again: advice.
            messages.append(
                unproven(
                    f"{label}: image {image} uses {tag}, a build label with no version, date or commit in it, which "
                    f"its owner can push again; {_FIX}"
                )
            )
    return messages


POLICY = Policy(
    name="image-tag-pinned",
    description="Container images must name a version tag or a digest, never :latest, a branch-like moving tag (main, "
    "nightly, dev, ...) or no tag.",
    catalog="G1",
    severity="medium",
    # Advisory: a risk, not a failure the files prove (docs/policies.md "Enforcement levels"); --config raises it.
    enforcement="advisory",
    remediation_steps=(
        "Reference images as repository:version (e.g. vllm/vllm-openai:v0.33.0) or, better, "
        "repository@sha256:digest; never :latest or an untagged repository."
    ),
    config_schema={
        "disallowedTags": {
            "type": "array",
            "items": {"type": "string"},
            "default": list(MOVING_TAGS),
            "description": "Tags treated as mutable and rejected, compared whole and case-insensitively (default: latest "
            "and the branch-like tags CI pipelines move: " + ", ".join(MOVING_TAGS[1:]) + ").",
        },
        "disallowedTagPrefixes": {
            "type": "array",
            "items": {"type": "string"},
            "default": ["latest-"],
            "description": 'Tag prefixes treated as mutable (default ["latest-"], e.g. latest-gpu).',
        },
    },
    resource_types=workload_types(*OPERATOR_TYPES),
    check_resource=_check,
    rationale=(
        "An untagged image pulls :latest, and latest moves: replicas of one Deployment can run different engine "
        "releases and a rollback cannot return to what ran (https://kubernetes.io/docs/concepts/containers/images/#image-names). "
        "Catalogue row 1 (Kyverno disallow-latest-tag, Polaris tagNotSpecified, kube-linter latest-tag, Checkov CKV_K8S_14)."
    ),
)
