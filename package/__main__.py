"""The llm-serving component package's provider: hosts the library's components for every Pulumi language.

The Pulumi CLI runs this file as a plugin (PulumiPlugin.yaml) with the engine's address; the SDK's
``component_provider_host`` infers the package schema from the components' type annotations
(components/hosted/), prints the port of its gRPC server and serves GetSchema and Construct.
"""

import sys
from pathlib import Path

from pulumi.provider.experimental import component_provider_host

try:  # installed from requirements.txt (the library ships as llm_serving)
    from llm_serving.hosted import COMPONENTS, PACKAGE, VERSION
except ImportError:  # run from a checkout, where the library is the components/ folder beside this one
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from components.hosted import COMPONENTS, PACKAGE, VERSION

if __name__ == "__main__":
    component_provider_host(COMPONENTS, PACKAGE, version=VERSION)
