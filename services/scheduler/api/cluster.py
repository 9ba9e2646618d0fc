"""The session's working copy of the cluster, built fresh from a snapshot for every session."""

from __future__ import annotations

import msgspec

from services.scheduler.api.job import JobInfo
from services.scheduler.api.node import NodeTable
from services.scheduler.api.queue import QueueInfo
from services.scheduler.api.resources import ResourceSpace
from services.scheduler.api.status import Status
from shared.models import HyperNode, PodDisruptionBudget


class Cluster(msgspec.Struct, kw_only=True):
    """Nodes, queues and jobs; ``job_errors`` are jobs the builder could not use, and why."""

    space: ResourceSpace
    nodes: NodeTable
    queues: dict[str, QueueInfo]
    jobs: dict[str, JobInfo]
    job_errors: dict[str, Status] = {}
    skipped: dict[str, str] = {}
    # The cluster's PodDisruptionBudgets as observed (the pdb plugin's victims filter).
    disruption_budgets: list[PodDisruptionBudget] = []
    # The cluster's HyperNodes as observed (network-topology-aware scheduling).
    hyper_nodes: list[HyperNode] = []
