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

The data (documented numbers, hardware catalog) ships inside the package, see
:func:`zmodel.hardware.catalog.data_folder`. ``__version__`` is the installed
distribution's version (package metadata); ``python -m zmodel`` is the ``zmodel`` command.
"""
from importlib import import_module as _import_module

__all__ = ["queueing", "hardware", "kernel", "data", "calibration", "__version__"]

_SUBMODULES = {"queueing", "hardware", "kernel", "data", "calibration", "fits", "plotting", "report", "cli"}
#: reported when zmodel runs from a source tree that was never installed (no metadata)
_UNKNOWN_VERSION = "0+unknown"


def _version() -> str:
    from importlib import metadata

    try:
        return metadata.version("zmodel")
    except metadata.PackageNotFoundError:
        return _UNKNOWN_VERSION


def __getattr__(name):
    if name == "__version__":
        globals()[name] = version = _version()
        return version
    if name in _SUBMODULES:
        module = _import_module(f"{__name__}.{name}")
        globals()[name] = module
        return module
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | _SUBMODULES | {"__version__"})
