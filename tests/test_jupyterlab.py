"""JupyterLab as `make lab` starts it: a real server on a loopback port, driven through its REST API."""

import json
import os
import queue
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import jupytext
import pytest

from lib.build.book_tools import ROOT, chapter_paths, chapters

VENV_BIN = Path(sys.executable).parent
TOKEN = "executable-theory-test"
CHECKED = (
    "chi-squared-preference-optimization"  # the chapter whose cells run in a lab kernel
)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    runtime = tmp_path_factory.mktemp("jupyter-runtime")
    port = free_port()
    env = {**os.environ, "JUPYTER_RUNTIME_DIR": str(runtime)}
    cmd = [
        str(VENV_BIN / "jupyter"),
        "lab",
        "--no-browser",
        "--ip=127.0.0.1",
        f"--port={port}",
        f"--IdentityProvider.token={TOKEN}",
        f"--ServerApp.root_dir={ROOT}",
        "--allow-root",
    ]
    proc = subprocess.Popen(
        cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    base = f"http://127.0.0.1:{port}"
    for _ in range(120):
        try:
            api(base, "/api/status")
            break
        except OSError:
            if proc.poll() is not None:
                pytest.fail(
                    "jupyter lab exited: " + proc.stderr.read().decode()[-2000:]
                )
            time.sleep(0.5)
    else:
        proc.terminate()
        pytest.fail("jupyter lab did not answer within 60 s")
    yield base, runtime
    proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()


def api(base: str, path: str, method: str = "GET", body: dict | None = None):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(
        base + path,
        data=data,
        method=method,
        headers={"Authorization": f"token {TOKEN}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=60) as response:
        text = response.read().decode()
    return json.loads(text) if text else None


def test_every_chapter_md_opens_as_the_committed_notebook(server):
    base, _ = server
    for slug in chapters():
        model = api(
            base, f"/api/contents/book/{slug}/{slug}.md?type=notebook&content=1"
        )
        assert model["type"] == "notebook", slug
        opened = [
            c["source"].strip()
            for c in model["content"]["cells"]
            if c["cell_type"] == "code"
        ]
        committed = [
            c.source.strip()
            for c in jupytext.read(chapter_paths(slug)["ipynb"]).cells
            if c.cell_type == "code"
        ]
        assert opened == committed, (
            f"{slug}: the .md opened in JupyterLab differs from the .ipynb"
        )


def test_md_files_open_as_notebooks_by_default():
    """The shipped settings make the Jupytext Notebook viewer the default for markdown."""
    overrides = (
        Path(sys.prefix) / "share" / "jupyter" / "lab" / "settings" / "overrides.json"
    )
    viewers = json.loads(overrides.read_text())[
        "@jupyterlab/docmanager-extension:plugin"
    ]
    assert viewers["defaultViewers"]["markdown"] == "Jupytext Notebook"


def test_saving_in_jupyterlab_keeps_the_triple_paired(server):
    base, _ = server
    slug = CHECKED
    model = api(base, f"/api/contents/book/{slug}/{slug}.md?type=notebook&content=1")
    target = f"_build/labtest/{slug}.md"
    (ROOT / "_build" / "labtest").mkdir(parents=True, exist_ok=True)
    try:
        api(
            base,
            f"/api/contents/{target}",
            "PUT",
            {"type": "notebook", "format": "json", "content": model["content"]},
        )
        for ext in ("md", "ipynb", "py"):
            path = ROOT / "_build" / "labtest" / f"{slug}.{ext}"
            assert path.exists(), (
                f"saving the .md in JupyterLab did not write its .{ext}"
            )
    finally:
        for path in (ROOT / "_build" / "labtest").glob(f"{slug}.*"):
            path.unlink()


def test_a_lab_kernel_imports_lib_and_refuses_a_bad_parameter(server):
    from jupyter_client import BlockingKernelClient

    base, runtime = server
    kernel = api(
        base, "/api/kernels", "POST", {"name": "python3", "path": f"book/{CHECKED}"}
    )
    try:
        client = BlockingKernelClient(
            connection_file=str(runtime / f"kernel-{kernel['id']}.json")
        )
        client.load_connection_file()
        client.start_channels()
        client.wait_for_ready(timeout=300)  # the kernel is up and answers
        cells = [
            c.source
            for c in jupytext.read(chapter_paths(CHECKED)["md"]).cells
            if c.cell_type == "code"
        ]
        parameters, checks = cells[0], cells[1]

        def run(code):
            # The shell reply, not IOPub: a SUB socket that joins late drops the
            # kernel's first broadcasts, and a loaded CI machine joins late.
            msg_id = client.execute(code)
            while True:
                try:
                    reply = client.get_shell_msg(timeout=300)
                except queue.Empty:
                    pytest.fail("the lab kernel did not answer within 300 s")
                if reply["parent_header"].get("msg_id") == msg_id:
                    break
            content = reply["content"]
            if content["status"] == "error":
                return content["ename"], content["evalue"]
            return None

        assert run(parameters) is None
        assert run(checks) is None, "the chapter's check cell failed at its defaults"
        assert (
            run("import lib, os; assert os.getcwd().endswith(" + repr(CHECKED) + ")")
            is None
        )
        assert run(parameters + "\nn_pairs = 0") is None
        ename, evalue = run(checks)
        assert ename == "ValueError" and "`n_pairs`" in evalue
        client.stop_channels()
    finally:
        api(base, f"/api/kernels/{kernel['id']}", "DELETE")


def test_no_incompatible_lab_extension():
    out = subprocess.run(
        [str(VENV_BIN / "jupyter"), "labextension", "list"],
        capture_output=True,
        text=True,
    )
    text = out.stdout + out.stderr
    assert "jupyterlab-myst" in text and "jupyterlab-jupytext" in text
    assert "not compatible" not in text and " X" not in text, text


def test_a_chapter_md_opens_in_the_browser_as_a_rendered_notebook(server, tmp_path):
    """What a reader sees: JupyterLab's front end, in headless Chromium, opens a chapter's .md as
    a notebook (jupytext's viewer by default) with its theorem blocks rendered by jupyterlab-myst.
    `jupyter labextension list` can say OK while an extension fails to load in the browser."""
    import shutil

    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        pytest.skip("no chromium on this machine (.ci/run installs it)")
    base, _ = server
    url = f"{base}/lab/tree/book/{CHECKED}/{CHECKED}.md?token={TOKEN}&reset"
    flags = [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        f"--user-data-dir={tmp_path / 'profile'}",
        "--virtual-time-budget=30000",
        "--dump-dom",
    ]
    dom = subprocess.run(
        [chromium, *flags, url], capture_output=True, text=True, timeout=180
    ).stdout
    assert "jp-Notebook" in dom, "JupyterLab did not start in the browser"
    proofs = dom.count('class="myst-proof ')
    assert proofs >= 3, (
        f"{CHECKED}.md did not open as a notebook with rendered theorem blocks "
        f"({proofs} rendered); is the Jupytext Notebook viewer the default, and does the "
        "jupytext lab extension load in this JupyterLab?"
    )


def test_jupyterlab_asks_no_news_and_checks_no_updates():
    """The shipped settings switch off the "get notified about Jupyter news?" pop-up."""
    shipped = json.loads((ROOT / "jupyter" / "overrides.json").read_text())
    installed = Path(sys.prefix) / "share" / "jupyter" / "lab" / "settings"
    assert json.loads((installed / "overrides.json").read_text()) == shipped
    notification = shipped["@jupyterlab/apputils-extension:notification"]
    assert notification == {"fetchNews": "false", "checkForUpdates": False}


def test_a_plain_papermill_run_prints_no_plain_tcp_warning(tmp_path):
    """A kernel started by a client that provisions no CurveZMQ keys (plain papermill, as CI
    users run it) does not warn about TCP without encryption: the venv's kernel config drops
    that one message, and other kernel warnings still show."""
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("x = 1", metadata={"tags": ["parameters"]})]
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    nbformat.write(nb, tmp_path / "in.ipynb")
    run = subprocess.run(
        [str(VENV_BIN / "papermill"), "in.ipynb", "out.ipynb", "-p", "x", "3"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr
    assert "without encryption" not in run.stdout + run.stderr
    config = Path(sys.prefix) / "etc" / "ipython" / "ipython_kernel_config.py"
    assert (
        config.read_text()
        == (ROOT / "jupyter" / "ipython_kernel_config.py").read_text()
    )
