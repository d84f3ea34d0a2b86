"""G41: Jobs should set ttlSecondsAfterFinished.

Model-download and warm-up Jobs finish and stay: their pods keep holding logs, and their
ephemeral volumes keep node disk until someone deletes them.
"""

from __future__ import annotations

from policies.framework import Policy, Resource
from policies.kube import get

JOB_TYPE = "kubernetes:batch/v1:Job"


def _check(resource: Resource, config: dict) -> list[str]:
    if get(resource.props, "spec", "ttlSecondsAfterFinished") is not None:
        return []
    return ["spec.ttlSecondsAfterFinished is not set, so the finished Job and its pods stay forever; set it (e.g. 3600)"]


POLICY = Policy(
    name="job-ttl",
    description="Jobs should set spec.ttlSecondsAfterFinished.",
    catalog="G41",
    severity="low",
    enforcement="advisory",
    remediation_steps="Set spec.ttlSecondsAfterFinished on the Job (e.g. 3600); CronJobs keep their history with successfulJobsHistoryLimit instead.",
    resource_types=(JOB_TYPE,),
    check_resource=_check,
    rationale=(
        "The TTL-after-finished controller deletes finished Jobs and their pods "
        "(https://kubernetes.io/docs/concepts/workloads/controllers/ttlafterfinished/). Catalogue row 41 "
        "(kube-linter job-ttl-seconds-after-finished)."
    ),
)
