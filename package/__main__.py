"""The llm-serving component package's provider: hosts the library's components for every Pulumi language.

The Pulumi CLI runs this file as a plugin (PulumiPlugin.yaml) with the engine's address. As the SDK's
``component_provider_host`` does, the SDK's analyzer infers the package schema from the components' type
annotations (components/hosted/), and the provider prints the port of its gRPC server and serves
GetSchema and Construct; the provider is the SDK's ComponentProvider with secrets marked and enums in
lists mapped (components/hosted/provider.py says why).
"""

import sys
from pathlib import Path

try:  # installed from requirements.txt (the library ships as llm_serving)
    from llm_serving.hosted import COMPONENTS, PACKAGE, VERSION
    from llm_serving.hosted.provider import host
except ImportError:  # run from a checkout, where the library is the components/ folder beside this one
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from components.hosted import COMPONENTS, PACKAGE, VERSION
    from components.hosted.provider import host

if __name__ == "__main__":
    host(COMPONENTS, PACKAGE, version=VERSION)
