"""A model argument that is a template's fill-in rather than a model (``placeholder-local-model``, ``your-model-name``,
``<model>``, ``REPLACE_ME``): read by S27 model-is-not-a-fill-in (on the line to edit) and G72 hub-model-id-exists (on
the server that downloads it)."""

from __future__ import annotations

import re

from policies.reading.placeholders import placeholder_in

# A fill-in word standing as a whole part of a model name (lower or upper case): placeholder-local-model,
# your-model, model-name-here, changeme, replace-me, TODO.
_FILL_IN = re.compile(
    r"(?i)(?:^|[-_/.])(?:placeholder|changeme|change-me|replace-?me|todo|fill-?in|model-name-here|your-model(?:-\w+)?)"
    r"(?:[-_/.]|$)"
)


def fill_in_model(model: str) -> bool:
    """True for a model argument that is a template's fill-in rather than a model."""
    return bool(_FILL_IN.search(model)) or placeholder_in(model) is not None
