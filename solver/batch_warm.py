"""Preloaded by the batch forkserver (see `solver.batch._context`): importing this module loads the
solver kernels once, so that every worker forked from the server starts warm (and a cold numba
cache is compiled once, not once per worker). Nothing else should import it."""

from .batch import ensure_warm

try:
    ensure_warm()
except Exception:  # noqa: BLE001 - a worker then warms up by itself and reports the failure
    pass
