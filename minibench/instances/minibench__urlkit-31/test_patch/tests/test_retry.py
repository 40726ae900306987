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


def test_retry_after_http_date():
    retry = Retry(attempt=1)
    headers = Headers({"Retry-After": "Sun, 06 Nov 1994 08:50:07 GMT"})
    assert retry.sleep_for(503, headers, now=784111777) == 30.0


def test_retry_after_date_in_the_past_means_now():
    retry = Retry(attempt=1)
    headers = Headers({"Retry-After": "Sun, 06 Nov 1994 08:49:37 GMT"})
    assert retry.sleep_for(429, headers, now=784111800) == 0.0


def test_retry_after_garbage_falls_back_to_backoff():
    retry = Retry(attempt=2, backoff_factor=0.5)
    assert retry.sleep_for(503, Headers({"Retry-After": "soon"})) == 1.0
