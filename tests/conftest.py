from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def chapter_slugs() -> list[str]:
    from lib.build.book_tools import chapters

    return chapters()


def pytest_generate_tests(metafunc):
    if "slug" in metafunc.fixturenames:
        metafunc.parametrize("slug", chapter_slugs())


@pytest.fixture
def root() -> Path:
    return ROOT
