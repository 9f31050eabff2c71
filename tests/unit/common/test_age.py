"""Ages in the sidebar are pi's session-selector buckets, edge for edge."""

from __future__ import annotations

import pytest
from pi_sessions.core.common.text import age

# (milliseconds ago, what pi 1.6.0's formatSessionDate shows), computed by running pi's own
# function (formatSessionDate, extracted from its dist/) against a fixed clock.
PI_BUCKETS = [
    (-5000, "now"),
    (0, "now"),
    (59999, "now"),
    (60000, "1m"),
    (3599999, "59m"),
    (3600000, "1h"),
    (86399999, "23h"),
    (86400000, "1d"),
    (604799999, "6d"),
    (604800000, "1w"),
    (2591999999, "4w"),
    (2592000000, "1mo"),
    (5097600000, "1mo"),
    (5184000000, "2mo"),
    (31449600000, "12mo"),
    (31535999999, "12mo"),
    (31536000000, "1y"),
    (62985600000, "1y"),
    (63072000000, "2y"),
    (259200000000, "8y"),
]


@pytest.mark.parametrize(("ms", "shown"), PI_BUCKETS)
def test_age_matches_pis_session_selector(ms: int, shown: str) -> None:
    assert age(ms / 1000) == shown
