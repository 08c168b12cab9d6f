"""``swgpu search --scheduler tls://...`` on a cluster set up as
docs/search.md ("A TLS cluster across hosts") says, on this one machine: the
certificates made by the document's own openssl commands, its configuration
file, then ``dask scheduler`` and ``dask worker`` with TLS. The output is the
one of a run in one process. With ``require-encryption`` a ``tcp://``
address is refused in one line, and so is a ``tls://`` one without
certificates; the local cluster of ``--workers`` then uses TLS too."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from importlib import resources
from pathlib import Path

import pytest

pytest.importorskip("distributed")

from dask_checks import check_loopback_only, stop_processes  # noqa: E402
from swgpu.exceptions import InputError  # noqa: E402
from swgpu.parallel.dask_cluster import client_security  # noqa: E402
from swgpu.parallel.dask_executor import SCHEDULER_ENV, DaskExecutor  # noqa: E402

DOC = Path(__file__).resolve().parents[2] / "docs" / "search.md"
EXAMPLES = Path(str(resources.files("swgpu").joinpath("data", "examples")))
SEARCH = ["search", "-q", EXAMPLES / "queries.fasta", "-d", EXAMPLES / "targets.fasta", "--device", "cpu", "--top", "8",
          "--quiet"]


def _error_line(code, out, err) -> str:
    assert code == 2 and out == "" and err.count("\n") == 1 and "Traceback" not in err, (code, err)
    return err.strip()


def _doc_blocks() -> tuple[str, str]:
    """The first ``sh`` block (the openssl commands) and the ``yaml`` block of the TLS section."""
    text = DOC.read_text()
    section = text[text.index("### A TLS cluster across hosts"):]
    sh = re.search(r"```sh\n(.*?)```", section, re.S).group(1)
    yaml = re.search(r"```yaml\n(.*?)```", section, re.S).group(1)
    return sh, yaml


@pytest.fixture(scope="module")
def tls(tmp_path_factory):
    """A folder with the certificates and, in ``config/``, the Dask
    configuration of the document (its ``/path/to/`` made this folder)."""
    if shutil.which("openssl") is None:
        pytest.skip("needs the openssl command")
    folder = tmp_path_factory.mktemp("tls")
    sh, yaml = _doc_blocks()
    assert sh.startswith("openssl req") and "/path/to/" in yaml
    made = subprocess.run(["bash", "-euc", sh], cwd=folder, capture_output=True, text=True)
    assert made.returncode == 0, made.stderr
    (folder / "config").mkdir()
    (folder / "config" / "tls.yaml").write_text(yaml.replace("/path/to/", f"{folder}/"))
    return folder


def _config(folder: Path) -> dict:
    """The document's configuration, as ``dask.config.set`` takes it (dotted keys)."""
    import yaml

    def flat(tree: dict, prefix: str = "") -> dict:
        out = {}
        for key, value in tree.items():
            out.update(flat(value, f"{prefix}{key}.") if isinstance(value, dict) else {prefix + key: value})
        return out

    return flat(yaml.safe_load((folder / "config" / "tls.yaml").read_text()))


def _wait_for(path: Path, procs, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not (path.exists() and path.stat().st_size):
        for proc in procs:
            assert proc.poll() is None, proc.args
        assert time.monotonic() < deadline, f"no {path.name} after {seconds} s"
        time.sleep(0.05)


def test_search_on_a_tls_cluster(tls, tmp_path, run_cli, monkeypatch):
    monkeypatch.delenv(SCHEDULER_ENV, raising=False)
    code, _, err = run_cli(SEARCH + ["-o", tmp_path / "plain.tsv"])
    assert code == 0, err
    env = dict(os.environ, DASK_CONFIG=str(tls / "config"), TMPDIR=str(tmp_path))
    env.pop(SCHEDULER_ENV, None)
    dask = [sys.executable, "-m", "dask"]
    logs = open(tmp_path / "cluster.log", "w")
    procs = [subprocess.Popen(dask + ["scheduler", "--protocol", "tls", "--host", "127.0.0.1", "--port", "0",
                                      "--no-dashboard", "--scheduler-file", tmp_path / "scheduler.json"],
                              env=env, stdout=logs, stderr=subprocess.STDOUT)]
    try:
        _wait_for(tmp_path / "scheduler.json", procs)
        address = json.loads((tmp_path / "scheduler.json").read_text())["address"]
        assert address.startswith("tls://127.0.0.1:")
        procs.append(subprocess.Popen(dask + ["worker", address, "--nthreads", "1", "--resources", "GPU=1",
                                              "--host", "127.0.0.1", "--no-dashboard"],
                                      env=dict(env, CUDA_VISIBLE_DEVICES="0"), stdout=logs, stderr=subprocess.STDOUT))
        search = [str(a) for a in SEARCH]
        done = subprocess.run([sys.executable, "-m", "swgpu"] + search + ["--scheduler", address, "-o", "tls.tsv"],
                              cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, (done.stderr, (tmp_path / "cluster.log").read_text())
        assert done.stderr == ""
        assert (tmp_path / "tls.tsv").read_bytes() == (tmp_path / "plain.tsv").read_bytes()
        # with require-encryption, the same scheduler by a plain address: refused before connecting
        plain = address.replace("tls://", "tcp://")
        done = subprocess.run([sys.executable, "-m", "swgpu"] + search + ["--scheduler", plain],
                              cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
        assert done.returncode == 2 and done.stdout == "", done.stderr
        assert done.stderr.count("\n") == 1 and "require-encryption" in done.stderr and "tls://" in done.stderr
    finally:
        stop_processes(procs)
        logs.close()


def test_require_encryption_refuses_plain_addresses(run_cli, tmp_path):
    import dask

    with dask.config.set({"distributed.comm.require-encryption": True}):
        line = _error_line(*run_cli(SEARCH + ["--scheduler", "tcp://127.0.0.1:8786", "-o", tmp_path / "x.tsv"]))
    assert line.startswith("swgpu: error: --scheduler: tcp://127.0.0.1:8786:") and "tls://" in line
    line = _error_line(*run_cli(SEARCH + ["--scheduler", "tls://127.0.0.1:8786"]))
    assert "needs certificates" in line and "distributed.comm.tls" in line
    assert not (tmp_path / "x.tsv").exists()


def test_tls_settings(tls, tmp_path):
    """The document's configuration: a client's Security from it; a key
    that cannot be read is one line; a local cluster speaks TLS on loopback."""
    import dask

    with dask.config.set(_config(tls)):
        assert client_security("tls://127.0.0.1:8786").require_encryption
        with pytest.raises(InputError) as info:
            client_security("tcp://127.0.0.1:8786")
        assert info.value.param == "scheduler" and "tls://" in info.value.message
        with DaskExecutor(workers=1, threads_per_worker=1) as executor:
            assert executor.address.startswith("tls://127.0.0.1:")
            assert executor.map(abs, [-3, 4]) == [3, 4]
            check_loopback_only(executor.run(os.getpid).values())
    missing = {"distributed.comm.tls.client.key": str(tmp_path / "missing.pem")}
    with dask.config.set(_config(tls)), dask.config.set(missing):
        with pytest.raises(InputError) as info:
            client_security("tls://127.0.0.1:8786")
    assert "missing.pem" in info.value.message and "\n" not in info.value.message
