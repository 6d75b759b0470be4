"""Answers that are not the API's JSON (hokmclient/http.py ``PLAIN_ANSWERS``): another server at
the address is ``NotHokm`` at once, never retried, and no page of it reaches a message; the
gateway's plain-text limits and a proxy's passing states keep their codes and retries.  And
``hokm play`` against a server that is not Hokm says so in one line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from hokmclient import ApiError, Client, NotHokm, free_port
from tests.conftest import wait_for

PAGE = "<!DOCTYPE html><html><body><h1>Error response</h1><p>Error code: {}</p></body></html>"


def client_answering(status: int, body: str, calls: list[int], content_type: str = "text/html"
                     ) -> Client:
    def answer(request: httpx.Request) -> httpx.Response:
        calls.append(status)
        return httpx.Response(status, text=body, headers={"content-type": content_type,
                                                          "retry-after": "0"})

    http = httpx.Client(transport=httpx.MockTransport(answer), base_url="http://h")
    return Client(http=http, retries=3)


@pytest.mark.parametrize("status", [200, 301, 404, 405, 501, 505])
def test_another_servers_answer_is_not_hokm_at_once(status: int) -> None:
    calls: list[int] = []
    client = client_answering(status, PAGE.format(status), calls)
    with pytest.raises(NotHokm) as caught:
        client.summary("abcdef0123456789")
    assert caught.value.code == "not_hokm" and caught.value.status == status
    assert "<" not in caught.value.message and f"HTTP {status}" in caught.value.message
    assert not caught.value.retryable and calls == [status]  # asked once
    assert isinstance(caught.value, ApiError)  # `except ApiError` still catches it


@pytest.mark.parametrize("status, code, asked", [
    (503, "unavailable", 4), (502, "unavailable", 4), (504, "unavailable", 4),
    (500, "unavailable", 4), (429, "rate_limited", 4), (413, "too_large", 1),
    (414, "bad_request", 1), (431, "bad_request", 1), (408, "bad_request", 1),
])
def test_plain_answers_keep_their_meaning(status: int, code: str, asked: int) -> None:
    calls: list[int] = []
    client = client_answering(status, "Service Unavailable\n", calls, "text/plain")
    with pytest.raises(ApiError) as caught:
        client.summary("abcdef0123456789")
    assert caught.value.code == code and not isinstance(caught.value, NotHokm)
    assert caught.value.message.startswith(f"HTTP {status}")
    assert len(calls) == asked  # the retryable ones are sent again (retries=3)


def test_the_apis_own_refusal_is_read_whatever_its_status() -> None:
    calls: list[int] = []
    client = client_answering(404, '{"error": {"code": "not_found", "message": "no match"}}',
                              calls, "application/json")
    with pytest.raises(ApiError) as caught:
        client.summary("abcdef0123456789")
    assert (caught.value.code, caught.value.message) == ("not_found", "no match")


def test_hokm_play_against_another_server_says_so_in_one_line(tmp_path: Path) -> None:
    port = free_port()
    other = subprocess.Popen([sys.executable, "-m", "http.server", str(port), "--bind",
                              "127.0.0.1", "--directory", str(tmp_path)],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        def listening() -> bool:
            try:
                return httpx.get(f"http://127.0.0.1:{port}/", timeout=1).status_code == 200
            except httpx.TransportError:
                return False

        wait_for(listening, 20, 0.05, "the other server")
        for url in (f"http://127.0.0.1:{port}", f"http://127.0.0.1:{port}/m/abcdef0123456789"):
            run = subprocess.run([sys.executable, "-m", "hokm", "play", url, "--bot", "easy"],
                                 capture_output=True, text=True, timeout=60,
                                 stdin=subprocess.DEVNULL)
            assert run.returncode == 2, run.stderr  # a URL that is no Hokm server: bad input
            lines = run.stderr.strip().splitlines()
            assert len(lines) == 1 and "is not a Hokm server (it answered HTTP" in lines[0], \
                run.stderr
            assert "<" not in run.stderr
        # hokm replay LINK the same (an audit's finding: status 1 there); it needs no terminal
        # to ask the server first
        run = subprocess.run([sys.executable, "-m", "hokm", "replay",
                              f"http://127.0.0.1:{port}/m/abcdef0123456789"],
                             capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
        assert run.returncode == 2, run.stderr
        assert "is not a Hokm server (it answered HTTP" in run.stderr, run.stderr
    finally:
        other.kill()
        other.wait(timeout=10)
