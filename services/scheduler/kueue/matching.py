"""Does a ResourceFlavor suit a pod template? Kueue's checkFlavorForPodSets.

A flavor matches when its ``nodeTaints`` (NoSchedule, NoExecute) are tolerated by the pod
template's tolerations and the flavor's own ``tolerations``, and its ``nodeLabels`` satisfy
the template's nodeSelector and required node affinity, counting only the label keys the
flavor itself defines (``flavorSelector``).
"""

from __future__ import annotations

from services.scheduler.kueue.modes import Reason
from shared.models import PodSpec, ResourceFlavor
from shared.models.base import LabelSelectorRequirement, requirement_matches


def incompatible(flavor: ResourceFlavor, spec: PodSpec) -> Reason | None:
    name = flavor.metadata.name
    tolerations = [*spec.tolerations, *flavor.spec.tolerations]
    for taint in flavor.spec.nodeTaints:
        if taint.effect in ("NoSchedule", "NoExecute") and not any(
            t.tolerates(taint) for t in tolerations
        ):
            # Go's %s of the corev1.Taint upstream prints, TimeAdded unset.
            shown = f"{{{taint.key} {taint.value or ''} {taint.effect} <nil>}}"
            return Reason("UntoleratedTaint", f"untolerated taint {shown} in flavor {name}")
    # Only this flavor's own label keys count (Kueue's flavorSelector).
    if not _matches_labels(spec, flavor.spec.nodeLabels, set(flavor.spec.nodeLabels)):
        return Reason("NodeAffinityMismatch", f"flavor {name} doesn't match node affinity")
    return None


def _matches_labels(spec: PodSpec, labels: dict[str, str], allowed_keys: set[str]) -> bool:
    """nodeSelector and required node affinity, restricted to the flavors' label keys."""
    for key, value in spec.nodeSelector.items():
        if key in allowed_keys and labels.get(key) != value:
            return False
    affinity = spec.affinity.nodeAffinity if spec.affinity else None
    required = affinity.requiredDuringSchedulingIgnoredDuringExecution if affinity else None
    if required is None or not required.nodeSelectorTerms:
        return True
    terms = [
        [r for r in term.matchExpressions if r.key in allowed_keys]
        for term in required.nodeSelectorTerms
    ]
    # Terms are ORed: one left without a flavor key matches every flavor.
    if any(not term for term in terms):
        return True
    return any(
        all(
            requirement_matches(
                LabelSelectorRequirement(key=r.key, operator=r.operator, values=r.values), labels
            )
            for r in term
        )
        for term in terms
    )
