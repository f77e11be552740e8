import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# the tests, and the kernels they start (nbval, papermill), import this checkout's lib,
# not the one the venv's editable install points at (another worktree's, say)
sys.path.insert(0, str(ROOT))
from lib.build.book_tools import kernels_import_this_checkout  # noqa: E402

kernels_import_this_checkout()


def chapter_slugs() -> list[str]:
    from lib.build.book_tools import chapters

    return chapters()


def pytest_generate_tests(metafunc):
    if "slug" in metafunc.fixturenames:
        metafunc.parametrize("slug", chapter_slugs())


@pytest.fixture
def root() -> Path:
    return ROOT
