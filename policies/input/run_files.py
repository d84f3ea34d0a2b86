"""Which files a `python -m policies check` run reads: the files named, those under the folders named, and ``-``.

A folder is walked in a stable order (sorted), its symbolic links to folders not followed, and a plan's ``derived/``
folder beside its marker left out (stacks/plan.py writes it; the plan checks those objects itself). A file read is a
manifest (``.yaml``, ``.yml``, ``.json``), an envsubst/sed/Terraform template of one (``.yaml.tpl``...), a Terraform
file, a Pulumi program (policies/reading/pulumi_program.py) or a helmfile. A symbolic link found under a folder whose
target lies outside that folder is not read: a link out of the run (``values.yaml -> /etc/...``,
``../../other/x.yaml``) names a file the run was not asked to check, as policies/reading/run_bounds.py keeps a
helmfile's, Argo CD source's or Terraform ``file()`` path within the run; the link is reported as not read (S27,
advice: ``LINK_OUT``), never followed. A link named on the command line is the caller's own choice and read. Moved
here from policies/manifests.py (review57: it was at its 600-line limit).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Optional, Sequence

from components.loading import LoadError
from policies.reading.helmfile import is_helmfile
from policies.reading.pulumi_program import PROGRAM_SUFFIXES

SUFFIXES = (".yaml", ".yml", ".json")
# envsubst/sed/Terraform templates of manifests: read best-effort, what does not parse is not a finding of its own.
TEMPLATE_SUFFIXES = tuple(f"{s}.{t}" for s in (".yaml", ".yml") for t in ("template", "tmpl", "tpl", "tftpl"))
_READ_SUFFIXES = (*SUFFIXES, *TEMPLATE_SUFFIXES, ".tf", *PROGRAM_SUFFIXES)
STDIN = "-"
# `python -m stacks plan`'s marker file and derived folder (stacks/plan.py; tests/plan/test_plan_node_choice.py: equal).
PLAN_MARKER = ".llm-serving-plan"
DERIVED_FOLDER = "derived"


LINK_OUT = "a symbolic link out of the checked folder: not read (what it names is no file of this run)"


class ManifestReadError(ValueError):
    """Paths or files that cannot be read; ``errors`` holds one LoadError per problem."""

    def __init__(self, errors: Sequence[LoadError]):
        self.errors = tuple(errors)
        super().__init__("\n".join(str(e) for e in self.errors))


def _linked_out(path: str, root: str) -> bool:
    """True for a symbolic link whose target (followed to the end) is not under ``root`` (a real path)."""
    if not os.path.islink(path):
        return False
    target = os.path.realpath(path)
    return target != root and not target.startswith(root.rstrip(os.sep) + os.sep)


def manifest_paths(paths: Sequence[str], links_out: Optional[list[str]] = None) -> list[str]:
    """The files named, those under the folders named (sorted; no link out of the folder: each added to ``links_out``
    when given), and ``-``; a missing path is an error."""
    out: list[str] = []
    errors: list[LoadError] = []
    for raw in paths:
        if raw == STDIN:
            out.append(STDIN)
            continue
        path = Path(raw)
        if path.is_dir():
            found: list[str] = []
            root = os.path.realpath(path)
            for folder, dirs, files in os.walk(path, followlinks=False):
                dirs.sort()
                # A plan's derived/ folder (beside its marker) holds what the controllers will create from the
                # objects next to it; the plan checks those itself, and read again here beside their sources they
                # would count the same pods twice (e.g. a predictor Deployment beside its InferenceService).
                if PLAN_MARKER in files and DERIVED_FOLDER in dirs:
                    dirs.remove(DERIVED_FOLDER)
                for name in files:
                    if name.endswith(_READ_SUFFIXES) or is_helmfile(name, folder):
                        file = os.path.join(folder, name)
                        out_of_run = _linked_out(file, root)
                        (links_out if out_of_run and links_out is not None else [] if out_of_run else found).append(file)
            out.extend(sorted(found))
        elif path.exists():
            out.append(raw)
        else:
            errors.append(LoadError(raw, "no such file or folder"))
    if errors:
        raise ManifestReadError(errors)
    return out


__all__ = [
    "DERIVED_FOLDER",
    "LINK_OUT",
    "PLAN_MARKER",
    "STDIN",
    "SUFFIXES",
    "TEMPLATE_SUFFIXES",
    "ManifestReadError",
    "manifest_paths",
]
