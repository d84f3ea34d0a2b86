"""How sure a finding is: a message marked unproven (it rests on something the checked objects do not show) or a
house preference is reported advisory even by a mandatory policy (`finding_level`). Re-exported by policies.framework,
where checks import them from."""

from __future__ import annotations


class Unproven(str):
    """A finding whose truth rests on something the checked objects do not show: a cluster setting taken at its
    default, an operator or platform that may fill the field, an object that lives outside the files read (a
    NodePool, an adapter rule, the InferenceService a ServingRuntime serves), or an estimate standing in for a
    figure the manifest does not give. A mandatory policy reports it as advisory (`finding_level`): only what
    the manifest itself proves blocks. Checks mark such messages with `unproven`; everything else stays str."""


def unproven(message: str) -> Unproven:
    """``message`` marked as resting on something outside the checked objects (reported advisory, never blocking)."""
    return Unproven(message)


class Preference(Unproven):
    """A finding that judges a house threshold the manifest may rightly choose otherwise (a scale-down window shorter
    than ours, a larger scale-up step), not a failure of serving: reported advisory like an unproven finding, since a
    mandatory finding must mean that serving breaks."""


def preference(message: str) -> Preference:
    """``message`` marked as judging a house threshold, not a failure (reported advisory, never blocking)."""
    return Preference(message)


# The end of the label of a config that code builds only under a condition (an ``LLMConfig(...)`` call inside an ``if``
# of a mounted module: policies/reading/serve_python.py). The branch may never run, so a finding that names such a
# config rests on something the files do not show, whichever rule reports it (the engine rules read these configs
# through policies/reading/serving.py engine_configs as they read any engine).
CONDITIONAL_CODE = " (under a condition)"


def finding_level(level: str, message: str) -> str:
    """The level one finding is reported at: the policy's, except that an unproven finding, or one on a config built
    under a condition (CONDITIONAL_CODE), never blocks."""
    if level == "mandatory" and (isinstance(message, Unproven) or CONDITIONAL_CODE in message):
        return "advisory"
    return level
