"""tests/distance.py: the one definition of how far outputs are from eager's, used by every table."""

import numpy as np

from tests.distance import differences, max_difference


def test_equal_values_nan_pairs_and_infinities_count_zero():
    got = np.array([1.0, np.nan, np.inf, -np.inf], dtype=np.float32)
    assert differences(got, got.copy()).tolist() == [0.0, 0.0, 0.0, 0.0]


def test_a_nan_or_infinity_against_a_number_is_infinitely_far():
    got = np.array([np.nan, 1.0, np.inf])
    assert differences(got, np.array([1.0, np.nan, 1.0])).tolist() == [np.inf, np.inf, np.inf]


def test_max_difference_is_the_largest_absolute_difference_in_float64():
    got = np.array([[1.0, 2.5], [3.0, 4.0]], dtype=np.float32)
    assert max_difference(got, np.array([[1.0, 2.0], [3.0, 4.25]])) == 0.5
    assert max_difference(np.zeros((0, 3)), np.zeros((0, 3))) == 0.0


def test_rtol_takes_its_part_off_unequal_elements_only():
    expected = np.array([100.0, 1.0, 5.0])
    got = np.array([101.0, 1.0, 5.0])
    # 1 - 0.01 * 100 = 0 at the first element; the equal elements count 0, not -rtol * |expected|
    assert max_difference(got, expected, rtol=0.01) == 0.0
    assert max_difference(np.array([101.0]), np.array([100.0]), rtol=0.001) == 1.0 - 0.1
    assert max_difference(np.array([101.0]), np.array([100.0]), rtol=0.02) == 1.0 - 2.0  # below: negative
    assert max_difference(np.array([np.nan]), np.array([100.0]), rtol=0.5) == np.inf
