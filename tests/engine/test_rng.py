import numpy as np
import pytest

from montecarlo.engine.rng import check_seed, chunk_generator, chunk_seed
from montecarlo.errors import InputError


def test_chunk_seed_matches_spawn():
    spawned = np.random.SeedSequence(42).spawn(5)
    for i, child in enumerate(spawned):
        assert chunk_seed(42, i).generate_state(4).tolist() == child.generate_state(4).tolist()


def test_chunks_are_distinct_and_repeatable():
    a = chunk_generator(7, 0).random(4)
    b = chunk_generator(7, 1).random(4)
    assert not np.array_equal(a, b)
    assert np.array_equal(a, chunk_generator(7, 0).random(4))


@pytest.mark.parametrize("bad", [-1, 1.5, "3", True, None])
def test_bad_seeds_rejected(bad):
    with pytest.raises(InputError):
        check_seed(bad)
