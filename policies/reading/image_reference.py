"""Whether a container image reference parses, as the kubelet parses it before any pull.

The kubelet's image manager (kubernetes pkg/kubelet/images/image_manager.go EnsureImageExists) first calls
applyDefaultImageTag -> pkg/util/parsers/parsers.go ParseImageName -> ``reference.ParseNormalizedNamed`` of
github.com/distribution/reference; on an error the container waits with reason ``InvalidImageName`` and never
starts (no pull is tried, no back-off ends it). The grammar below is that package's (distribution/reference
regexp.go at 00a09fa, normalize.go at 4ca1403, the code index's stored versions):

- ParseNormalizedNamed refuses a bare 64-hex identifier, and a repository path (after the domain) with an upper-case
  letter ("repository name (...) must be lowercase");
- splitDockerDomain takes the first path element as the domain when it is ``localhost``, holds a ``.`` or ``:``, or has
  an upper-case letter; otherwise the name is on docker.io;
- Parse matches ``ReferenceRegexp`` = name [":" tag] ["@" digest], with a name of lower-case alphanumeric path
  components joined by ``.``, ``_``, ``__`` or dashes, a tag ``[\\w][\\w.-]{0,127}``, and refuses a name over 255
  characters (NameTotalLengthMax).

So ``<ECR_REPO_URI>:latest``, ``${IMAGE}:v1``, ``REPLACE_ME``, ``MyOrg/app:1`` and anything with a space never run.
The digest's algorithm and length (go-digest Validate) are not checked here: this module says only what the
regular grammar refuses.
"""

from __future__ import annotations

import re

_ALNUM = r"[a-z0-9]+"
_SEPARATOR = r"(?:[._]|__|[-]+)"
_DOMAIN_COMPONENT = r"(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])"
_DOMAIN = rf"(?:{_DOMAIN_COMPONENT}(?:\.{_DOMAIN_COMPONENT})*|\[(?:[a-fA-F0-9:]+)\])(?::[0-9]+)?"
_PATH_COMPONENT = rf"{_ALNUM}(?:{_SEPARATOR}{_ALNUM})*"
_NAME = rf"(?:{_DOMAIN}/)?{_PATH_COMPONENT}(?:/{_PATH_COMPONENT})*"
_TAG = r"[\w][\w.-]{0,127}"
_DIGEST = r"[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*[:][0-9a-fA-F]{32,}"
# Go's RE2 \w is ASCII only.
_REFERENCE = re.compile(rf"^({_NAME})(?::({_TAG}))?(?:@({_DIGEST}))?$", re.ASCII)
_IDENTIFIER = re.compile(r"^[a-f0-9]{64}$")
_NAME_TOTAL_LENGTH_MAX = 255


def _split_domain(name: str) -> tuple[str, str]:
    """distribution/reference normalize.go splitDockerDomain: (domain, remainder) of a familiar name."""
    first, slash, rest = name.partition("/")
    if not slash:
        return "docker.io", f"library/{name}"
    if first == "localhost" or any(ch in first for ch in ".:") or first.lower() != first:
        domain, remainder = first, rest
    else:
        domain, remainder = "docker.io", name
    if domain == "index.docker.io":
        domain = "docker.io"
    if domain == "docker.io" and "/" not in remainder:
        remainder = f"library/{remainder}"
    return domain, remainder


def image_reference_error(image: str) -> str | None:
    """Why the kubelet cannot parse ``image`` (distribution/reference's wording), or None when it parses."""
    if _IDENTIFIER.match(image):
        return "a bare 64-hex identifier is not a repository name"
    domain, remainder = _split_domain(image)
    repository = remainder.split(":", 1)[0].split("@", 1)[0]
    match = _REFERENCE.match(f"{domain}/{remainder}")
    if repository.lower() != repository and _REFERENCE.match(f"{domain}/{remainder}".lower()):
        return f"repository name ({repository.removeprefix('library/')}) must be lowercase"
    if match is None or repository.lower() != repository:
        return "invalid reference format"
    if len(match.group(1)) > _NAME_TOTAL_LENGTH_MAX:
        return f"repository name must not be more than {_NAME_TOTAL_LENGTH_MAX} characters"
    return None
