"""A single-Redis URL (``redis://``) that names a node of a Redis Cluster is refused when
``hokm serve`` and ``hokm worker`` start, in one line naming the variable (exit 2), as the
reverse mistake is.  The finding (an operator): the server started "ready" and answered
500s with a MovedError traceback; the worker printed its start line, then died."""

from __future__ import annotations

import os
import subprocess

import pytest

from hokmclient import free_port
from tests.cluster_fixture import Cluster
from tests.services.test_cli import HOKM, assert_one_line_error


@pytest.mark.parametrize("variable", ["HOKM_REDIS_URL", "HOKM_QUEUE_URL"])
@pytest.mark.parametrize("command", [["serve", "--port", "0"], ["worker"]])
def test_a_redis_url_naming_a_cluster_node_is_refused_at_start(
        redis_cluster: Cluster, private_redis: type, variable: str, command: list[str]) -> None:
    node = f"redis://127.0.0.1:{redis_cluster.primaries[0][1]}/0"
    env = {k: v for k, v in os.environ.items() if not k.startswith("HOKM_")}
    if variable == "HOKM_REDIS_URL":
        env["HOKM_REDIS_URL"] = node
    else:  # the matches on the cluster, the bot queue (wrongly) on one of its nodes
        env["HOKM_REDIS_URL"] = redis_cluster.url
        env["HOKM_QUEUE_URL"] = node
    done = subprocess.run([HOKM, *command], env=env, capture_output=True, text=True,
                          timeout=60)
    line = assert_one_line_error(done, 2)
    assert f"{variable} must be redis+cluster://" in line, line
    assert "names one of its nodes" in line


def test_a_single_redis_still_starts(private_redis: type) -> None:
    """(The check asks INFO: a plain Redis passes it.)"""
    server = private_redis()
    server.start()
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("HOKM_")}
    env["HOKM_REDIS_URL"] = server.url
    with subprocess.Popen([HOKM, "serve", "--port", str(port)], env=env, text=True,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE) as proc:
        try:
            assert proc.stdout is not None
            first = proc.stdout.readline()
            assert first.startswith("Hokm is running at"), (first, proc.stderr.read()
                                                            if proc.poll() is not None else "")
        finally:
            proc.terminate()
            proc.wait(timeout=30)
