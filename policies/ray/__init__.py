"""Policies and helpers for KubeRay workloads (RayCluster, RayService, RayJob)."""
