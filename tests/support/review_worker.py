"""``python -m client.review`` as ``make run`` and the compose file run it, against a test
server, with few Monte Carlo samples (``GIN_REVIEW_SAMPLES``) to keep the suite quick."""

from __future__ import annotations

from typing import ClassVar

from tests.support.client_process import ClientProcess

#: Few samples and one confirmation round: the tests check the plumbing and the information
#: rule, the benchmark the quality (``bench/review.py``).
TEST_REVIEW_ENV = {
    "GIN_REVIEW_SAMPLES": "2",
    "GIN_REVIEW_CONFIRM_SAMPLES": "2",
    "GIN_REVIEW_CONFIRM_ROUNDS": "1",
    "GIN_REVIEW_KNOCK_SAMPLES": "2",
}


class ReviewWorkerProcess(ClientProcess):
    module: ClassVar[str] = "client.review"
    settings: ClassVar[dict[str, str]] = {
        "GIN_REVIEW_POLL_SECONDS": "0.2",
        "GIN_REVIEW_PROCESSES": "0",
        **TEST_REVIEW_ENV,
    }
