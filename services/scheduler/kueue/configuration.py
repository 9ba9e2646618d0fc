"""Kueue's Configuration, the part admission honours: ``fairSharing``.

Kueue reads its Configuration (``config.kueue.x-k8s.io``, the ``controller_manager_config.yaml``
of the ``kueue-manager-config`` ConfigMap) at start. Its ``fairSharing`` switches the
scheduler to fair sharing (the cycle's tournament, preemption by share) and makes the queue
reconcilers write ``status.fairSharing.weightedShare`` (``apis/config/v1beta1`` and
``v1beta2`` ``configuration_types.go``):

- v1beta1: ``fairSharing.enable`` (false by default) and ``preemptionStrategies``, which
  default to ``[LessThanOrEqualToFinalShare, LessThanInitialShare]`` when enabled and empty
  (``Convert_v1beta1_FairSharing_To_v1beta2_FairSharing``);
- v1beta2: ``fairSharing`` present means enabled; ``preemptionStrategies`` is required.

The strategies must be one of the lists ``validateFairSharing`` (``pkg/config/validation.go``)
accepts. Other fields of the Configuration are not applied by Shoal.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import yaml

from services.scheduler.kueue.fair_sharing import (
    LESS_THAN_INITIAL_SHARE,
    LESS_THAN_OR_EQUAL_TO_FINAL_SHARE,
    FairSharing,
)
from shared.errors import UserError

GROUP = "config.kueue.x-k8s.io"
CONFIG_KEY = "controller_manager_config.yaml"
"""The key of Kueue's ``kueue-manager-config`` ConfigMap that holds the Configuration."""
DEFAULT_STRATEGIES = (LESS_THAN_OR_EQUAL_TO_FINAL_SHARE, LESS_THAN_INITIAL_SHARE)
VALID_STRATEGY_SETS = (
    (LESS_THAN_OR_EQUAL_TO_FINAL_SHARE,),
    (LESS_THAN_INITIAL_SHARE,),
    (LESS_THAN_OR_EQUAL_TO_FINAL_SHARE, LESS_THAN_INITIAL_SHARE),
)
_PATH = "fairSharing.preemptionStrategies"


def fair_sharing(enable: bool, strategies: Sequence[str], *, source: str) -> FairSharing | None:
    """Fair sharing switched on with ``strategies`` (validated as Kueue does), or None."""
    if not enable:
        return None
    chosen = tuple(strategies)
    if not chosen:
        raise UserError(f"{source}: {_PATH}: Required value: must be specified")
    if chosen not in VALID_STRATEGY_SETS:
        supported = ", ".join(f'"{",".join(s)}"' for s in VALID_STRATEGY_SETS)
        raise UserError(
            f"{source}: {_PATH}: Unsupported value: {list(chosen)}: supported values: {supported}"
        )
    return FairSharing(preemption_strategies=chosen)


def from_configuration(text: str, *, source: str) -> FairSharing | None:
    """The ``fairSharing`` of a Kueue Configuration document (or of the ConfigMap that holds
    one under ``controller_manager_config.yaml``)."""
    try:
        doc = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise UserError(f"{source}: not YAML: {str(exc).splitlines()[0]}") from None
    if isinstance(doc, dict) and doc.get("kind") == "ConfigMap":
        data = doc.get("data") or {}
        if CONFIG_KEY not in data:
            raise UserError(f"{source}: ConfigMap has no data.{CONFIG_KEY}")
        return from_configuration(str(data[CONFIG_KEY]), source=f"{source} ({CONFIG_KEY})")
    if not isinstance(doc, dict) or doc.get("kind") != "Configuration":
        raise UserError(f"{source}: expected a {GROUP} Configuration")
    version = str(doc.get("apiVersion") or "")
    if version not in (f"{GROUP}/v1beta1", f"{GROUP}/v1beta2"):
        raise UserError(f"{source}: apiVersion {version!r}: expected {GROUP}/v1beta1 or v1beta2")
    section: Any = doc.get("fairSharing")
    if section is None:
        return None
    if not isinstance(section, dict):
        raise UserError(f"{source}: fairSharing: expected a mapping")
    strategies = section.get("preemptionStrategies") or []
    if not isinstance(strategies, list) or not all(isinstance(s, str) for s in strategies):
        raise UserError(f"{source}: {_PATH}: expected a list of strategy names")
    if version.endswith("/v1beta1"):
        enable = section.get("enable", False)
        if not isinstance(enable, bool):
            raise UserError(f"{source}: fairSharing.enable: expected true or false")
        return fair_sharing(enable, strategies or DEFAULT_STRATEGIES, source=source)
    return fair_sharing(True, strategies, source=source)
