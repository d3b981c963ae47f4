"""The projection of a run's time left (engine.pace), which the CLI prints and the API warns with."""

import pytest

from montecarlo.engine.pace import ESTIMATE_AGAIN_SECONDS, Projection


def test_the_pace_is_read_half_a_second_after_the_first_chunk_and_said_once():
    seen = Projection()
    assert seen(0, 10**9, 0.0) is None  # nothing done yet: no clock
    assert seen(100_000, 10**9, 0.1) is None  # the first chunk starts the clock
    assert seen(150_000, 10**9, 0.59) is None  # under half a second since
    # 0.5 s after the first chunk: 100,000 trials in 0.5 s, 999,800,000 left at that pace
    assert seen(200_000, 10**9, 0.6) == pytest.approx(999_800_000 * 0.5 / 100_000)
    assert seen.estimated and seen(300_000, 10**9, 5.0) is None  # once


@pytest.mark.parametrize("total, said", [(12_200_000, None), (12_200_001, 60.000005)])
def test_only_a_run_over_a_minute_is_said(total, said):
    """100,000 trials in half a second: 12,000,000 left take 60 s exactly, one more a little over."""
    seen = Projection()
    seen(100_000, total, 0.25)
    got = seen(200_000, total, 0.75)
    assert got == (None if said is None else pytest.approx(said))
    assert seen.next_look == 0.75 + ESTIMATE_AGAIN_SECONDS and seen.estimated == (said is not None)


def test_a_short_projection_is_looked_at_again_until_a_quarter_is_done():
    seen = Projection()
    seen(1, 1000, 0.0)
    assert seen(100, 1000, 1.0) is None  # 9 s left
    assert seen(110, 1000, 2.0) is None and seen.next_look == 4.0  # too soon to look again
    assert seen(124, 1000, 4.0) is None  # 4 s for 123: 32 s left
    assert seen(126, 1000, 12.0) == pytest.approx(874 * 12.0 / 125)  # 84 s left: said
    exact = Projection()  # looked at again at the very time it was due (a grid's total grown)
    exact(1, 1000, 0.0)
    assert exact(100, 1000, 1.0) is None and exact.next_look == 4.0
    assert exact(101, 2000, 4.0) == pytest.approx(1899 * 4.0 / 100)
    quick = Projection()
    quick(1, 1000, 0.0)
    assert quick(250, 1000, 1.0) is None and quick.estimated  # a quarter done: never again
    assert quick(251, 1000, 100.0) is None


def test_no_rate_from_no_more_trials_and_the_clock_starts_again_while_workers_start():
    seen = Projection()
    seen(1, 10**9, 0.0)
    assert seen(1, 2 * 10**9, 0.6) is None  # no more done: no rate
    assert seen(2, 2 * 10**9, 1.2) == pytest.approx((2 * 10**9 - 2) * 1.2)
    starting = [True, False]
    later = Projection(lambda: starting.pop(0))
    later(100_000, 10**9, 0.1)  # the first chunk: the clock starts
    assert later(150_000, 10**9, 0.6) is None  # still starting: the clock starts again here
    assert later.first == (0.6, 150_000)
    assert later(1_150_000, 10**9, 1.1) == pytest.approx((10**9 - 1_150_000) * 0.5 / 1_000_000)
    assert not starting


def test_a_precision_run_whose_total_grows_after_its_first_quarter_is_looked_at_again():
    """A first batch of 20,000,000 trials passed a quarter by the first look, and the precision
    run then added billions of trials with no word (the CLI and the API alike)."""
    seen = Projection()
    seen(1_000_000, 20_000_000, 0.0)
    assert seen(10_000_000, 20_000_000, 1.0) is None and seen.settled == 20_000_000  # 1 s left
    assert seen(15_000_000, 20_000_000, 2.0) is None  # the same total: settled
    assert not seen.said and seen.estimated
    grown = 2_000_000_000
    assert seen(21_000_000, grown, 2.5) is None and seen.settled == 0  # too soon after the last look
    assert seen(22_000_000, grown, 4.0) == pytest.approx((grown - 22_000_000) * 4.0 / 21_000_000)
    assert seen.said and seen(23_000_000, 2 * grown, 10.0) is None  # said once, whatever grows
