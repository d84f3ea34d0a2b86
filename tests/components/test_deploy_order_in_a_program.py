"""DeployOrder in a program of one's own: the waits are derived whatever the order of creation."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.conftest import ROOT

_PROGRAM = r"""
import json, sys
from pathlib import Path
import pulumi, pulumi_kubernetes as k8s
from components import DeployOrder
from stacks.offline import StackFile, run_program


class Serving(pulumi.ComponentResource):
    def __init__(self, name):
        order = DeployOrder()
        try:
            super().__init__("example:index:Serving", name, None, order.options())
            child = pulumi.ResourceOptions(parent=self)
            # The workload first, what it names afterwards: the waits do not depend on this order.
            k8s.apps.v1.Deployment("web", metadata={"name": "web", "namespace": "apps"}, spec={
                "selector": {"matchLabels": {"app": "web"}},
                "template": {"metadata": {"labels": {"app": "web"}}, "spec": {
                    "serviceAccountName": "web", "containers": [{"name": "web", "image": "nginx:1.27",
                    "env": [{"name": "TOKEN", "valueFrom": {"secretKeyRef": {"name": "token", "key": "t"}}}]}]}}}, opts=child)
            k8s.core.v1.ServiceAccount("web-sa", metadata={"name": "web", "namespace": "apps"}, opts=child)
            k8s.core.v1.Secret("token", metadata={"name": "token", "namespace": "apps"}, string_data={"t": "x"}, opts=child)
            k8s.core.v1.Secret("other", metadata={"name": "token", "namespace": "elsewhere"}, string_data={"t": "x"}, opts=child)
            k8s.core.v1.Namespace("apps", metadata={"name": "apps"}, opts=child)
        finally:
            order.seal()


rec = run_program(StackFile("dev", Path("Pulumi.dev.yaml"), {}), lambda: Serving("s"))
print(json.dumps({r.name: list(r.dependencies) for r in rec.resources}))
"""


def test_a_workload_waits_for_what_it_names_created_after_it():
    proc = subprocess.run([sys.executable, "-c", _PROGRAM], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    deps = json.loads(proc.stdout)
    assert deps["web"] == ["apps", "token", "web-sa"]  # not the Secret of the same name in another namespace
    assert deps["web-sa"] == ["apps"] and deps["token"] == ["apps"] and deps["apps"] == []


_CYCLE = r"""
import json
from pathlib import Path
import pulumi, pulumi_kubernetes as k8s
from components import DeployOrder
from stacks.offline import StackFile, run_program

orders = []


class Service(pulumi.ComponentResource):
    def __init__(self, name, opts):
        super().__init__("example:index:Service", name, None, opts)
        k8s.core.v1.ServiceAccount(f"{name}-sa", metadata={"name": "reader", "namespace": "apps"},
                                   opts=pulumi.ResourceOptions(parent=self))


class Root(pulumi.ComponentResource):
    def __init__(self, name):
        order = DeployOrder()
        orders.append(order)
        try:
            super().__init__("example:index:Root", name, None, order.options())
            # A Deployment that names the ServiceAccount of a component given depends_on the Deployment:
            # by the rules it would wait for that ServiceAccount, whose parent waits for it.
            dep = k8s.apps.v1.Deployment("job", metadata={"name": "job", "namespace": "apps"}, spec={
                "selector": {"matchLabels": {"app": "job"}}, "template": {"metadata": {"labels": {"app": "job"}},
                "spec": {"serviceAccountName": "reader", "containers": [{"name": "c", "image": "busybox:1.36"}]}}},
                opts=pulumi.ResourceOptions(parent=self))
            Service("svc", pulumi.ResourceOptions(parent=self, depends_on=[dep]))
        finally:
            order.seal()


rec = run_program(StackFile("dev", Path("Pulumi.dev.yaml"), {}), lambda: Root("r"))
print(json.dumps({"deps": {r.name: list(r.dependencies) for r in rec.resources}, "cycles": orders[0].cycles}))
"""


def test_a_wait_that_would_close_a_cycle_is_left_out_instead_of_hanging():
    proc = subprocess.run([sys.executable, "-c", _CYCLE], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["cycles"]["job"] == ["svc-sa"]
    assert "svc-sa" not in out["deps"]["job"] and "job" in out["deps"]["svc"]
