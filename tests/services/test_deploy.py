"""The deployment files (no Docker engine here, so what can be checked without one is):

* the image's build stage copies every package the project declares: the wheel is built from
  exactly what ``deploy/Dockerfile`` copies, and must hold every package ``pyproject.toml``
  finds in the checkout, the ``hokm`` command's module among them (the image used to leave out
  ``hokm``, ``hokmclient`` and ``hokmplay``: its ``hokm`` command could not start);
* the build stage installs what mypyc's C needs: with ``--no-install-recommends``, gcc comes
  without the C library's headers (Debian's gcc only recommends ``libc6-dev``), and the image's
  build failed compiling the bots' modules;
* the image's HEALTHCHECK command passes against a running gateway and fails without one;
* ``deploy/compose.yaml`` restarts its services and starts the gateways and workers once Redis
  is healthy (parsed with PyYAML, which ``uvicorn[standard]`` installs).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest
import setuptools
import yaml

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
HOKM = str(Path(sys.executable).parent / "hokm")


def instructions(dockerfile: str) -> list[tuple[str, str]]:
    """The Dockerfile's instructions as (KEYWORD, arguments), continuation lines joined and
    comments left out."""
    joined = re.sub(r"\\\n", " ", dockerfile)
    found = []
    for line in joined.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            keyword, _, rest = line.partition(" ")
            found.append((keyword.upper(), rest.strip()))
    return found


def build_stage(dockerfile: str) -> list[tuple[str, str]]:
    """The instructions of the first stage (the build stage), its ``FROM`` included."""
    stage: list[tuple[str, str]] = []
    for keyword, rest in instructions(dockerfile):
        if keyword == "FROM" and stage:
            break
        stage.append((keyword, rest))
    return stage


def build_stage_copies(dockerfile: str) -> list[str]:
    """The paths the first stage copies from the build context."""
    sources: list[str] = []
    for keyword, rest in build_stage(dockerfile):
        if keyword == "COPY":
            words = [w for w in shlex.split(rest) if not w.startswith("--")]
            sources += words[:-1]
    return sources


def declared_packages(root: Path) -> set[str]:
    """The packages setuptools finds under ``root`` with pyproject.toml's own rules."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    include = config["tool"]["setuptools"]["packages"]["find"]["include"]
    return set(setuptools.find_packages(str(root), include=include))


def test_the_image_builds_a_wheel_with_every_declared_package(tmp_path: Path) -> None:
    copies = build_stage_copies((DEPLOY / "Dockerfile").read_text())
    assert {"pyproject.toml", "setup.py", "engine"} <= set(copies)  # the parse found them
    context = tmp_path / "src"
    context.mkdir()
    skip = shutil.ignore_patterns("__pycache__", "*.so", "*.pyc", "_built.py")
    for source in copies:
        if (ROOT / source).is_dir():
            shutil.copytree(ROOT / source, context / source, ignore=skip)
        else:
            shutil.copy2(ROOT / source, context / source)
    env = {**os.environ, "HOKM_PURE": "1"}  # no mypyc here: the packages are what is checked
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
         "--no-index", "-w", str(tmp_path / "wheels"), "."],
        cwd=context, env=env, capture_output=True, text=True, timeout=240)
    assert built.returncode == 0, built.stderr[-2000:]
    (wheel,) = (tmp_path / "wheels").glob("*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    in_wheel = {n.rpartition("/")[0].replace("/", ".") for n in names
                if n.endswith("/__init__.py")}
    declared = declared_packages(ROOT)
    assert {"engine", "services", "worker", "hokm", "hokmclient", "hokmplay"} <= declared
    assert declared - in_wheel == set(), "packages the image would leave out"
    entry = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]["hokm"]
    module = entry.partition(":")[0]
    assert module.replace(".", "/") + ".py" in names  # the `hokm` command's module
    static = {str(p.relative_to(ROOT)) for p in (ROOT / "services/gateway/static").rglob("*")
              if p.is_file()}
    assert static and static <= set(names)  # the web client too (package data)


def build_stage_packages(dockerfile: str) -> tuple[set[str], set[str]]:
    """The words of the first stage's ``apt-get install`` commands: (options, packages)."""
    options: set[str] = set()
    packages: set[str] = set()
    for keyword, rest in build_stage(dockerfile):
        if keyword == "RUN":
            for command in re.split(r"&&|;|\|\|", rest):
                words = shlex.split(command)
                if words[:2] == ["apt-get", "install"]:
                    options |= {w for w in words[2:] if w.startswith("-")}
                    packages |= {w for w in words[2:] if not w.startswith("-")}
    return options, packages


def test_the_build_stage_installs_a_c_compiler_with_the_c_librarys_headers() -> None:
    """mypyc's modules include Python.h, which includes <stdio.h>: libc6-dev.  Debian's gcc
    only recommends it, so with ``--no-install-recommends`` it must be named (or
    build-essential, which depends on it); setup.py compiles whenever a compiler is there."""
    options, packages = build_stage_packages((DEPLOY / "Dockerfile").read_text())
    assert "gcc" in packages or "build-essential" in packages, packages
    if "--no-install-recommends" in options:
        assert packages & {"libc6-dev", "build-essential"}, packages


def healthcheck_command(dockerfile: str) -> list[str]:
    checks = [rest for keyword, rest in instructions(dockerfile) if keyword == "HEALTHCHECK"]
    assert len(checks) == 1, "the image has no HEALTHCHECK"
    check = checks[0]
    command = check[check.index("CMD") + 3:].strip()
    argv: list[str] = json.loads(command)  # the exec form: no shell in the way
    return argv


def test_the_image_healthcheck_asks_readyz_of_a_running_gateway(tmp_path: Path) -> None:
    argv = healthcheck_command((DEPLOY / "Dockerfile").read_text())
    assert argv[0] == "python" and "/readyz" in argv[-1] and ":8000/" in argv[-1]
    base = {k: v for k, v in os.environ.items() if not k.startswith("HOKM_")}
    server = subprocess.Popen([HOKM, "serve", "--port", "0", "--data", str(tmp_path / "d")],
                              env=base, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True)
    try:
        assert server.stdout is not None
        first = server.stdout.readline()
        found = re.search(r"running at http://127\.0\.0\.1:(\d+)/", first)
        assert found, first
        port = found.group(1)
        probe = [sys.executable, *argv[1:-1], argv[-1].replace(":8000/", f":{port}/")]
        healthy = subprocess.run(probe, capture_output=True, text=True, timeout=30)
        assert healthy.returncode == 0, healthy.stderr
    finally:
        server.terminate()
        server.wait(timeout=30)
        for stream in (server.stdout, server.stderr):
            if stream is not None:
                stream.close()
    unhealthy = subprocess.run(probe, capture_output=True, text=True, timeout=30)
    assert unhealthy.returncode != 0  # nobody answers on that port any more


def test_compose_restarts_and_waits_for_a_healthy_redis() -> None:
    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    services = compose["services"]
    assert set(services) == {"redis", "gateway", "worker"}
    for name, service in services.items():
        assert service.get("restart") == "unless-stopped", name
    check = services["redis"]["healthcheck"]
    assert "redis-cli ping" in " ".join(check["test"]) and check["retries"] >= 1
    for name in ("gateway", "worker"):
        assert services[name]["depends_on"] == {"redis": {"condition": "service_healthy"}}
    # the image's HEALTHCHECK is the gateway's (HTTP); a worker has no HTTP server
    assert services["worker"]["healthcheck"] == {"disable": True}
    assert "healthcheck" not in services["gateway"]
    assert services["worker"]["command"][:2] == ["hokm", "worker"]


@pytest.mark.parametrize("text", [
    "FROM a AS b\nCOPY x y ./\nCOPY z z\nFROM c\nCOPY --from=b /w /w\n",
    "FROM a AS b\nCOPY --chown=1 x y ./\n# COPY q q\nCOPY \\\n  z z\nFROM c\n",
])
def test_the_dockerfile_reader(text: str) -> None:
    assert sorted(build_stage_copies(text)) == ["x", "y", "z"]
