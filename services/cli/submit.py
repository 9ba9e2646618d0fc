"""``shoal submit -f PATH``: create (or update) manifests on the API server, like kubectl apply.

Files are applied in name order; within a file, in document order — so Queues and
PriorityClasses placed first are there before the jobs that name them.
"""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path
from typing import Any

from shared.errors import UserError
from shared.kube import ApiError, KubeClient, resource_for
from shared.models import decode_object, iter_documents


def manifest_files(path: Path) -> list[Path]:
    if path.is_dir():
        return sorted(p for p in path.iterdir() if p.suffix in (".yaml", ".yml", ".json"))
    if not path.exists():
        raise UserError(f"{path}: no such file or directory")
    return [path]


def load_documents(paths: list[Path]) -> list[dict[str, Any]]:
    """Every document, validated (unknown kinds and bad fields are errors, before any call)."""
    documents: list[dict[str, Any]] = []
    for path in paths:
        for index, obj in iter_documents(path.read_text(), source=str(path)):
            decode_object(obj, document=f"{path} document {index}", strict_kind=False)
            try:
                resource_for(str(obj.get("apiVersion")), str(obj.get("kind")))
            except KeyError as exc:
                raise UserError(f"{path} document {index}: {exc.args[0]}") from None
            documents.append(obj)
    return documents


async def apply(kube: KubeClient, obj: dict[str, Any], *, namespace: str = "default") -> str:
    """Create ``obj``; if it exists, merge-patch it with the manifest (``kubectl apply``'s
    effect for a manifest that only adds or changes fields): fields the server filled in —
    a Job's generated selector and template labels, defaults — are kept, so re-submitting an
    unchanged batch/v1 Job is "unchanged" rather than an immutable-field error. A manifest
    with only ``generateName`` is always created (as ``kubectl create``); ``obj`` then carries
    the name the API server gave it."""
    rt = resource_for(obj["apiVersion"], obj["kind"])
    meta = obj.setdefault("metadata", {})
    if rt.namespaced:
        meta.setdefault("namespace", namespace)
    try:
        created = await kube.create(rt, obj)
        meta["name"] = created.get("metadata", {}).get("name", meta.get("name"))
        if rt == QUEUE:
            await _opened(kube, meta["name"])
        return "created"
    except ApiError as exc:
        if exc.status != 409 or not meta.get("name"):
            raise
    current = await kube.get(rt, meta["name"], meta.get("namespace"))
    patch = {k: v for k, v in obj.items() if k not in ("apiVersion", "kind", "metadata", "status")}
    patch["metadata"] = {k: meta[k] for k in ("labels", "annotations") if k in meta}
    patched = await kube.patch(rt, meta["name"], patch, namespace=meta.get("namespace"))
    before = current["metadata"].get("resourceVersion")
    return "unchanged" if patched["metadata"].get("resourceVersion") == before else "configured"


QUEUE = resource_for("scheduling.volcano.sh/v1beta1", "Queue")


async def _opened(kube: KubeClient, name: str, timeout: float = 30.0) -> None:
    """Wait (up to ``timeout``) until a new Volcano Queue is Open: Volcano's job webhook
    refuses a job to a queue its queue controller has not opened yet, and a manifest puts the
    Queue right before its jobs. kubesim opens it at creation; on a cluster, Shoal's job
    controller (or Volcano's) does moments later. Past the timeout the jobs meet the webhook's
    own refusal, which says why."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while loop.time() < deadline:
        queue = await kube.get(QUEUE, name)
        if (queue.get("status") or {}).get("state") == "Open":
            return
        await asyncio.sleep(0.1)


async def submit(kubeconfig: str | None, paths: list[Path], namespace: str) -> list[str]:
    documents = load_documents(paths)
    kube = await KubeClient.connect(kubeconfig)
    lines = []
    try:
        for obj in documents:
            outcome = await apply(kube, obj, namespace=namespace)
            lines.append(f"{obj['kind'].lower()}/{obj['metadata']['name']} {outcome}")
    finally:
        await kube.close()
    return lines


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-f", "--filename", type=Path, required=True, help="file or directory")
    parser.add_argument("-n", "--namespace", default="default")
    parser.add_argument("--kubeconfig", help="kubeconfig path (default: $KUBECONFIG)")


def run(args: argparse.Namespace) -> int:
    from services.cli.failures import check_kubeconfig

    files = manifest_files(args.filename)
    check_kubeconfig(args.kubeconfig)
    try:
        lines = asyncio.run(submit(args.kubeconfig, files, args.namespace))
    except ApiError as exc:
        raise UserError(f"the API server refused: {exc}") from None
    for line in lines:
        print(line)
    return 0
