"""Session-level views of the cluster: tasks, jobs, nodes and queues (Volcano's ``api`` package)."""

from services.scheduler.api.job import JobInfo
from services.scheduler.api.node import NodeTable
from services.scheduler.api.queue import QueueInfo
from services.scheduler.api.resources import ResourceSpace
from services.scheduler.api.task import TaskInfo, TaskStatus

__all__ = ["JobInfo", "NodeTable", "QueueInfo", "ResourceSpace", "TaskInfo", "TaskStatus"]
