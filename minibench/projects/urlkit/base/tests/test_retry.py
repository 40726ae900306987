import pytest

from urlkit import Headers, Retry


def test_backoff_grows():
    retry = Retry(backoff_factor=1.0)
    delays = []
    for _ in range(3):
        retry = retry.increment()
        delays.append(retry.backoff())
    assert delays == [1.0, 2.0, 4.0]


def test_backoff_capped():
    retry = Retry(total=10, backoff_factor=10, backoff_max=30, attempt=5)
    assert retry.backoff() == 30


def test_exhausted():
    retry = Retry(total=1).increment()
    assert retry.exhausted
    with pytest.raises(RuntimeError):
        retry.increment()


def test_retry_after_seconds():
    retry = Retry(attempt=1)
    assert retry.sleep_for(503, Headers({"Retry-After": "7"})) == 7.0


def test_retry_after_ignored_for_other_status():
    retry = Retry(attempt=1, backoff_factor=0.5)
    assert retry.sleep_for(500, Headers({"Retry-After": "7"})) == 0.5
