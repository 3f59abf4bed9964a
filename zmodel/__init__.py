"""zmodel: analytical and queueing-network models of Linux on the mainframe.

Layers (imports point down only)::

    zmodel.kernel    kernel-version and hypervisor models, composed from hardware
        |
    zmodel.hardware  components: channels, storage servers, CPUs, adapters
        |
    zmodel.queueing  formulas and solvers, no domain words

Beside the layers: ``zmodel.data`` (the documented numbers, with provenance),
``zmodel.calibration`` (fitting model parameters to them), plotting, the report and
the CLI. Sub-packages are imported lazily so that ``import zmodel`` stays fast.
"""
from importlib import import_module as _import_module

__version__ = "0.1.0"
__all__ = ["queueing", "hardware", "kernel", "data", "calibration", "__version__"]

_SUBMODULES = {"queueing", "hardware", "kernel", "data", "calibration", "fits", "plotting", "report", "cli"}


def __getattr__(name):
    if name in _SUBMODULES:
        module = _import_module(f"{__name__}.{name}")
        globals()[name] = module
        return module
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | _SUBMODULES)
