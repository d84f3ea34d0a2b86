"""S31 (the ConfigMap's side): a ConfigMap script that a pod runs at every start fetches code from a moving reference.

serving-code-pinned reads a script of a ConfigMap of the files that a container mounts and names on its command line
(policies/reading/mounted_scripts.py) and reports the fetch on the workload. The script is written in the ConfigMap, and
that is where it is pinned: the finding is said on the ConfigMap too, naming the key and the container that runs it
(either may be what a reader changes: spent set 82 dell-examples/generative-ai@feba5386 intel-XE9680-gaudi3/TGI/
Configmap.yml, key init_quant.sh, run by the TGI Deployment's init container, labelled S31 on ConfigMap tgi: `git clone`
of optimum-habana's default branch and `pip install git+https://github.com/huggingface/optimum-habana.git` with no
ref). Read for the workloads serving-code-pinned reads (serving pods, and every pod that restarts); advisory.
"""

from __future__ import annotations

from policies.framework import Policy, Resource
from policies.kube import container_label, get, split_type
from policies.models.serving_code_pinned import moving_fetches, restarting_containers
from policies.reading.mounted_scripts import mounted_script_files, script_keys, workloads_beside

# Words every moving fetch holds (moving_fetches: curl/wget of a branch URL, git+ installs, git clone).
_HINTS = ("git", "curl", "wget")


def _check(resource: Resource, config: dict) -> list[str]:
    scripts = script_keys(resource, lambda text: any(h in text for h in _HINTS) and bool(moving_fetches(text)))
    if not scripts:
        return []
    messages: list[str] = []
    for other in workloads_beside(resource):
        for path, podspec, container in restarting_containers(other):
            for file, text in mounted_script_files(podspec, container).items():
                key = next((k for k, v in scripts.items() if v == text), None)
                if key is None:
                    continue
                runner = (
                    f"{container_label(path, container)} of {split_type(other.type)[1]} {get(other.props, 'metadata', 'name')}"
                )
                for fetch in dict.fromkeys(moving_fetches(text)):
                    messages.append(
                        f"key {key} (run as {file} by {runner}) {fetch}: each restart may run code "
                        "nobody reviewed; pin the reference (a tag or commit) in the script, or bake the code into the image"
                    )
    return list(dict.fromkeys(messages))


POLICY = Policy(
    name="script-map-code-pinned",
    description=(
        "A ConfigMap script that a pod runs at start does not fetch code from a moving reference (git clone of a "
        "default branch, pip install git+URL with no ref, curl of a /main/ URL)."
    ),
    catalog="S31",
    severity="high",
    enforcement="advisory",
    remediation_steps=(
        "Pin what the script fetches (`git clone --branch <tag>`, `git checkout <sha>`, `pip install git+URL@<sha>`), "
        "or build the code into the image and drop the fetch."
    ),
    resource_types=("kubernetes:core/v1:ConfigMap",),
    check_resource=_check,
    rationale=(
        "A branch is a moving pointer (https://git-scm.com/book/en/v2/Git-Branching-Branches-in-a-Nutshell): a script "
        "that fetches from it at each start runs different code after each push, with no record of what ran."
    ),
)
