"""S31 reads the runtimeEnv string of a ray.io/v1alpha1 RayService's serveConfig (Serve config v1, before
serveConfigV2), and an archive of a tag named like a moving reference (/archive/refs/tags/latest.zip) is advice."""

from __future__ import annotations

import copy

from policy_fixtures import found_by

# Rowena2001/RayServe_AKS model_gpu_autoscale_config.yaml@39541d9e1700ca298a808a02cf15714fd0604f7d (spent set 27, labelled S31): working_dir is the archive of
# a tag literally named "latest", and pip installs at every start.
RAY_SERVICE = {
    "apiVersion": "ray.io/v1alpha1",
    "kind": "RayService",
    "metadata": {"name": "translator-gpu-auto"},
    "spec": {
        "serveConfig": {
            "importPath": "translator_gpu_autoscale.translator_app",
            "runtimeEnv": '{"working_dir": "https://github.com/Rowena2001/Final_Deployments/archive/refs/tags/latest.zip", '
            '"pip": ["torch==1.13.1", "transformers==4.30.2", "accelerate==0.20.3"]}',
            "deployments": [{"name": "Translator", "rayActorOptions": {"numGpus": 0.1, "numCpus": 0.3}}],
        },
        "rayClusterConfig": {
            "rayVersion": "2.5.0",
            "headGroupSpec": {
                "rayStartParams": {"dashboard-host": "0.0.0.0"},
                "template": {"spec": {"containers": [{"name": "ray-head", "image": "rayproject/ray:2.5.0"}]}},
            },
        },
    },
}


def test_a_latest_tag_archive_in_a_v1_serve_config_is_advice():
    found = found_by([RAY_SERVICE], "serving-code-pinned")
    assert found == [
        (
            "advisory",
            "spec.serveConfig.runtimeEnv.working_dir: Ray downloads "
            "https://github.com/Rowena2001/Final_Deployments/archive/refs/tags/latest.zip, the archive of a tag named "
            "'latest', when the application starts: a tag so named is usually re-pointed at each release, so each "
            "restart may run code nobody reviewed; pin a commit or a version tag in the URL",
        )
    ]
    [(_, installs)] = found_by([RAY_SERVICE], "serving-start-installs")
    assert installs.startswith("spec.serveConfig.runtimeEnv.pip: installs torch==1.13.1")


def test_a_commit_archive_or_a_version_tag_stays_silent():
    # KubeRay's RayService samples pin the working_dir archive to a commit (ray-project/test_dag/archive/41d09119...zip:
    # rentom/kuberay-trv ray-operator/config/samples/ray_v1alpha1_rayservice.yaml@77d6dc339f462e92a9df7dbb5d506e06cbcd6f90).
    pinned = copy.deepcopy(RAY_SERVICE)
    pinned["spec"]["serveConfig"]["runtimeEnv"] = (
        'working_dir: "https://github.com/ray-project/test_dag/archive/41d09119cbdf8450599f993f51318e9e27c59098.zip"'
    )
    tagged = copy.deepcopy(RAY_SERVICE)
    tagged["spec"]["serveConfig"]["runtimeEnv"] = (
        '{"working_dir": "https://github.com/Rowena2001/Final_Deployments/archive/refs/tags/v1.2.0.zip"}'
    )
    assert found_by([pinned, tagged], "serving-code-pinned") == []
