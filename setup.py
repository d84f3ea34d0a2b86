"""Package layout (metadata lives in pyproject.toml): the ``components/`` folder ships as ``llm_serving``.

setup.py only because the list of subpackages is computed: a new folder under components/
ships without anyone editing a list (tests/packaging checks the wheel holds every module).
"""

from setuptools import find_packages, setup

setup(
    package_dir={"llm_serving": "components"},
    packages=["llm_serving"] + [f"llm_serving.{p}" for p in find_packages("components")],
    package_data={"llm_serving": ["py.typed", "**/*.json", "**/*.yaml", "**/*.csv"]},
)
