"""The package's fork pools end when terminated, whatever signal handlers their parent carries.

A parent that has run notebooks holds nbclient's asyncio handlers for SIGINT and SIGTERM,
which only schedule a callback. Forked workers inherited them, so the SIGTERM of
``Pool.terminate()`` did nothing and ``join()`` waited forever (a CI run hung on
2026-11-27 in ``zmodel.report.run_calibrations`` after the report test had run in the same
process). Each case runs in a fresh interpreter that first installs such a handler; a
regression shows as the interpreter not ending (the timeout is a hang detector, far above
the seconds the work takes, not a speed requirement).
"""
import os
import signal
import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="fork pools exist only where fork does")

HANG = 300  # seconds: the work below takes a few; a pool that cannot end never returns

NOOP_SIGTERM = """
import asyncio, signal
loop = asyncio.new_event_loop()
asyncio.set_event_loop(loop)
loop.add_signal_handler(signal.SIGTERM, lambda: None)   # as nbclient does
loop.add_signal_handler(signal.SIGINT, lambda: None)
"""


def _run(body: str) -> subprocess.CompletedProcess:
    """Run ``body`` after the handlers; a hang kills the interpreter and its forked workers, and fails."""
    code = NOOP_SIGTERM + textwrap.dedent(body)
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=HANG)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        pytest.fail(f"the pool did not end within {HANG} s")
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def test_fold_pool_ends_under_a_noop_sigterm_handler():
    out = _run("""
        from zmodel.calibration import _map_folds
        print(list(_map_folds(lambda k: k * k, [0, 1, 2, 3], workers=2)))
    """)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[0, 1, 4, 9]"


def test_fold_pool_closed_early_ends_under_a_noop_sigterm_handler():
    # the consumer stops after the first result: the pool is terminated with work queued
    out = _run("""
        from zmodel.calibration import _map_folds
        folds = _map_folds(lambda k: k + 1, list(range(40)), workers=2)
        print(next(folds))
        folds.close()
    """)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "1"


def test_report_prefit_pool_ends_under_a_noop_sigterm_handler():
    # closed while its workers are still fitting (terminate, then join)
    out = _run("""
        from zmodel.report import _Prefits
        ahead = _Prefits(["usl", "dasd"], 2)
        assert ahead.active
        ahead.close()
        print("closed")
    """)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "closed"


def test_pool_terminated_before_its_workers_start_ends():
    # terminate() reaches the workers before their initializer has reset the inherited no-op
    # handler (workers slow to start, as on a loaded machine: the initializer is delayed here);
    # the SIGTERM must not be swallowed, or join() waits for a worker blocked on the queue lock
    out = _run("""
        import time
        from zmodel import calibration
        start = calibration._forked_worker_init
        def slow_start():
            time.sleep(1.0)
            start()
        calibration._forked_worker_init = slow_start
        pool = calibration._fork_pool(2)
        pool.terminate()
        pool.join()
        print("ended")
    """)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ended"
