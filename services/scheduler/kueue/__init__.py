"""Kueue-style admission: quota per ClusterQueue and flavor, cohorts, preemption.

``admit(objects, now)`` is the pure core (manifests in, decisions out) that ``shoal simulate
admit`` and the tests call; the modules are the concepts Kueue has: the quota tree of
ClusterQueues and Cohorts (``model``, built by ``tree``), workloads and their requests
(``workloads``), building the snapshot from manifests (``snapshot``), flavor assignment
(``flavors``), partial admission (``partial``), preemption (``preemption``), fair sharing
(``fair_sharing``: shares and the tournament; ``fair_preemption``), the scheduling cycle
(``cycle``) and its heads' nominations (``nomination``), and the queue manager that keeps
workloads and ordered queues between runs (``queue_manager``).
"""

from __future__ import annotations

from services.scheduler.kueue.cycle import GATES, admit
from services.scheduler.kueue.fair_sharing import FairSharing
from services.scheduler.kueue.result import AdmissionResult, Admitted, PodSetFlavors

__all__ = ["GATES", "AdmissionResult", "Admitted", "FairSharing", "PodSetFlavors", "admit"]
