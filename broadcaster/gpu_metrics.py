"""The host's GPU figures from NVML (utilisation, memory used and total, temperature, power) as va_gpu_* gauges.

One exporter per host, so no series is scraped twice: the daemon adds these families to its merged /metrics
(broadcaster.metrics.exposition, never a room worker's registry); a face service run outside a daemon (the
Kubernetes DaemonSet) serves them on VA_FACE_METRICS_PORT, and the room pods' daemons, which set
VA_FACE_SERVICES_DIR, leave the node's GPUs to it. NVML comes from nvidia-ml-py (module `pynvml`, in the `face`
extra). Without it, or without a driver or a GPU, the families carry no samples (no made-up zeros: a query sees
no series) and that is logged once. NVML answers from the driver in microseconds, so it is read at scrape time.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Iterator
from types import ModuleType
from typing import Any

from prometheus_client.core import GaugeMetricFamily

log = logging.getLogger(__name__)

EXTERNAL_FACE_ENV = "VA_FACE_SERVICES_DIR"  # set in a room pod: the node's face DaemonSet exports its GPUs
FAMILIES = (
    "va_gpu_utilization_ratio",
    "va_gpu_memory_used_bytes",
    "va_gpu_memory_total_bytes",
    "va_gpu_temperature_celsius",
    "va_gpu_power_watts",
)
_HELP = {
    "va_gpu_utilization_ratio": "Share of the last sample period a kernel ran on the GPU (NVML), 0..1",
    "va_gpu_memory_used_bytes": "GPU memory in use by every process (NVML)",
    "va_gpu_memory_total_bytes": "GPU memory in all (NVML)",
    "va_gpu_temperature_celsius": "GPU core temperature (NVML)",
    "va_gpu_power_watts": "GPU board power draw (NVML)",
}


class GpuCollector:
    """A prometheus_client collector of every GPU NVML sees; `nvml` stands in for pynvml (tests inject a fake)."""

    def __init__(self, nvml: ModuleType | None = None, *, enabled: bool = True) -> None:
        self._given = nvml
        self.enabled = enabled
        self._nvml: Any = None
        self._state = "new"  # new -> ready | absent
        self._lock = threading.Lock()

    def _open(self) -> Any:
        """pynvml, initialised once; None (logged once) when it cannot be had."""
        with self._lock:
            if self._state == "new":
                try:
                    nv = self._given
                    if nv is None:
                        import pynvml as nv
                    nv.nvmlInit()
                except Exception as exc:  # no module, no library, no driver, no GPU: all mean no GPU figures
                    self._state = "absent"
                    log.info("GPU metrics: NVML is not available (%s: %s); no va_gpu_* series",
                             type(exc).__name__, exc)
                    return None
                self._nvml, self._state = nv, "ready"
            return self._nvml if self._state == "ready" else None

    def collect(self) -> Iterator[GaugeMetricFamily]:
        fams = {n: GaugeMetricFamily(n, _HELP[n], labels=["gpu", "name"]) for n in FAMILIES}
        nv = self._open() if self.enabled else None
        if nv is not None:
            try:
                count = int(nv.nvmlDeviceGetCount())
            except Exception as exc:
                log.warning("GPU metrics: NVML cannot count the GPUs: %s", exc)
                count = 0
            for i in range(count):
                self._sample(nv, i, fams)
        yield from fams.values()

    @staticmethod
    def _sample(nv: Any, i: int, fams: dict[str, GaugeMetricFamily]) -> None:
        """One GPU's figures; a query this GPU does not support (power on some boards) leaves that sample out."""
        try:
            h = nv.nvmlDeviceGetHandleByIndex(i)
            name = nv.nvmlDeviceGetName(h)
        except Exception as exc:
            log.debug("GPU metrics: GPU %d: %s", i, exc)
            return
        labels = [str(i), name.decode() if isinstance(name, bytes) else str(name)]
        reads = {
            "va_gpu_utilization_ratio": lambda: nv.nvmlDeviceGetUtilizationRates(h).gpu / 100.0,
            "va_gpu_memory_used_bytes": lambda: nv.nvmlDeviceGetMemoryInfo(h).used,
            "va_gpu_memory_total_bytes": lambda: nv.nvmlDeviceGetMemoryInfo(h).total,
            "va_gpu_temperature_celsius": lambda: nv.nvmlDeviceGetTemperature(h, nv.NVML_TEMPERATURE_GPU),
            "va_gpu_power_watts": lambda: nv.nvmlDeviceGetPowerUsage(h) / 1000.0,  # NVML says milliwatts
        }
        for fam, read in reads.items():
            try:
                fams[fam].add_metric(labels, float(read()))
            except Exception as exc:
                log.debug("GPU metrics: GPU %d: %s: %s", i, fam, exc)


# The daemon's: off in a room pod whose face runs on the node's DaemonSet (it exports the node's GPUs itself).
HOST = GpuCollector(enabled=not os.environ.get(EXTERNAL_FACE_ENV))
