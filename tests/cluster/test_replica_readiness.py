"""``HOKM_REPLICA_ACKS`` on a cluster whose primary has no replica online: every append to its
matches answers ``503``, so the gateway is not ready (QA: ``/readyz`` said 200 while every
create answered 503), and ``hokm serve`` says why in one warning line at start."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from services.store.replicas import ReplicaCheck, short_of_replicas
from tests.conftest import redis_db_url, wait_for
from tests.gateway.helpers import gateway

HOKM = str(Path(sys.executable).parent / "hokm")
ROOT = Path(__file__).resolve().parents[2]


def test_readiness_waits_for_the_replicas_the_appends_wait_for(private_cluster: Any) -> None:
    cluster = private_cluster()
    primary = cluster.primary_of("any key")[1]
    with gateway(worker=False, redis_url=cluster.url, queue_url=redis_db_url(13),
                 replica_acks=1) as gw:
        assert gw.rt.replicas is not None
        gw.rt.replicas.ttl_s = 0.0  # (asked at every probe: the test waits on no cache)
        assert gw.get("/readyz").json() == {"ok": True, "store": True, "queue": True}
        assert short_of_replicas(gw.rt.client, 1) == []
        cluster.kill(cluster.replica_of(primary)[1])
        wait_for(lambda: gw.get("/readyz").status_code == 503, timeout=30)
        ready = gw.get("/readyz")
        assert ready.json() == {"ok": False, "store": False, "queue": True}
        assert ready.headers["Retry-After"] == "1"
        assert short_of_replicas(gw.rt.client, 1) == [f"127.0.0.1:{primary}"]
        assert short_of_replicas(gw.rt.client, 0) == []
    with gateway(worker=False, redis_url=cluster.url, queue_url=redis_db_url(13)) as gw:
        assert gw.rt.replicas is None  # acks off: a missing replica costs no request
        assert gw.get("/readyz").status_code == 200

    env = {**{k: v for k, v in os.environ.items() if not k.startswith("HOKM_")},
           "HOKM_REDIS_URL": cluster.url, "HOKM_QUEUE_URL": redis_db_url(13),
           "HOKM_REPLICA_ACKS": "1"}
    proc = subprocess.Popen([HOKM, "serve", "--port", "0"], env=env, cwd=ROOT, text=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        assert proc.stderr is not None
        line = proc.stderr.readline()  # the warning comes before the server runs
        assert f"HOKM_REPLICA_ACKS=1 but 1 of the cluster's primaries (127.0.0.1:{primary})" \
               " lack that many replicas online" in line, line
    finally:
        proc.kill()
        proc.wait()
        if proc.stderr is not None:
            proc.stderr.close()


def test_the_check_is_asked_once_per_ttl() -> None:
    asked = []

    class Cluster:
        def get_primaries(self) -> list[Any]:
            asked.append(1)
            return []

    now = [0.0]
    check = ReplicaCheck(Cluster(), 1, ttl_s=5.0, clock=lambda: now[0])
    assert check.ok() and check.ok() and len(asked) == 1
    now[0] = 5.0
    assert check.ok() and len(asked) == 2
