"""Channel subsystem capacity (zmodel.hardware.channels) by hand.

One FICON path (200 MB/s per direction, 100 us command time): a 1 MiB read occupies the
inbound link 1048576 / 200e6 s = 5.24 ms, far longer than the 0.1 ms command, so the path
moves 200 MB/s; half reads, half writes use both directions: 400 MB/s. Multibus spreads
I/O over all paths (4 x), failover uses one (IBM redbook wording in the module).
"""
import pytest

from zmodel.hardware.channels import ChannelLink, ChannelSubsystem

FICON = ChannelLink("FICON", data_rate=200e6, command_time=100e-6)


@pytest.mark.parametrize("multipath,paths,active", [("multibus", 4, 4), ("failover", 4, 1), ("multibus", 1, 1)])
def test_max_data_rate_by_hand(multipath, paths, active):
    css = ChannelSubsystem(FICON, paths=paths, multipath=multipath)
    b = 2 ** 20
    assert css.max_data_rate(b, 1.0) == pytest.approx(active * 200e6, rel=1e-12)
    assert css.max_data_rate(b, 0.5) == pytest.approx(active * 400e6, rel=1e-12)
    # small blocks: the command time limits, b / 0.1 ms per path
    assert css.max_data_rate(4096, 1.0) == pytest.approx(active * 4096 / 100e-6, rel=1e-12)
