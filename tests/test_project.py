"""The project's own files: the version written once, the results page's size, the licence."""

from __future__ import annotations

import importlib.metadata
import re
import tomllib
from pathlib import Path

import pytest

import demine

ROOT = Path(__file__).resolve().parent.parent
#: BENCHMARKS.md answers "how strong, how fast, against whom" in two minutes; detail goes to the
#: research log.
RESULTS_PAGE_LIMIT = 15 * 1024


def test_the_version_is_written_once_in_the_package() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "version" not in project["project"], "pyproject.toml must not write the version itself"
    assert "version" in project["project"]["dynamic"]
    # setuptools reads it from the package: demine.__version__ is src/demine/__init__.py's
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "demine.__version__"}
    source = (ROOT / "src" / "demine" / "__init__.py").read_text(encoding="utf-8")
    written = re.findall(r'^__version__ = "([^"]+)"$', source, flags=re.M)
    assert written == [demine.__version__]
    assert re.fullmatch(r"\d+\.\d+\.\d+(?:[.-]?\w+)?", demine.__version__)


def test_the_installed_metadata_agrees_with_the_package() -> None:
    try:
        installed = importlib.metadata.version("demine")
    except importlib.metadata.PackageNotFoundError:
        pytest.skip("demine is not installed (only on the path): no metadata to compare")
    assert installed == demine.__version__, "reinstall (pip install -e .) after changing __version__"


def test_the_changelog_has_an_unreleased_section_and_the_current_version() -> None:
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert "## [Unreleased]" in text
    assert f"## [{demine.__version__}]" in text


def test_the_licence_is_the_mit_text_pyproject_names() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert project["project"]["license"] == "MIT"
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License")
    assert "Permission is hereby granted, free of charge" in text


def test_the_results_page_stays_under_15_kb() -> None:
    size = (ROOT / "BENCHMARKS.md").stat().st_size
    assert size < RESULTS_PAGE_LIMIT, (
        f"BENCHMARKS.md is {size} bytes, over {RESULTS_PAGE_LIMIT}: move detail to docs/research-log.md"
    )


def test_the_check_for_files_left_behind_sees_a_new_file(tmp_path: Path) -> None:
    from tests.conftest import files_under

    (tmp_path / "__pycache__").mkdir()
    (tmp_path / "__pycache__" / "x.pyc").write_bytes(b"")
    before = files_under(tmp_path)
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "crash.log").write_text("panic")
    assert files_under(tmp_path) - before == {"sub/crash.log"}
    assert before == set()


def test_no_crash_log_is_kept_in_the_repository() -> None:
    assert not (ROOT / "crash.log").exists()


def test_the_api_reference_documents_every_public_name() -> None:
    pages = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "docs" / "reference").rglob("*.md"))
    documented = set(re.findall(r"^::: demine\.(\w+)", pages, flags=re.M))
    missing = sorted(set(demine.__all__) - documented - {"__version__"} - set(vars(demine.errors)))
    assert missing == [], f"add these to a page of docs/reference/api: {missing}"
    assert "errors" in documented  # the exception tree, with every error


def test_ci_builds_the_docs_warning_free_and_runs_the_readme_test_command() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert re.search(r'pip install -q -e "\.\[[^]]*\bdocs\b[^]]*\]"', ci)
    assert "mkdocs build --strict" in ci
    assert "readme_test_cmd=$(grep" in ci and 'bash -c "$readme_test_cmd"' in ci


def test_the_docs_hook_shows_sphinx_roles_as_plain_code() -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location("mkdocs_hooks", ROOT / "docs" / "mkdocs_hooks.py")
    assert spec is not None and spec.loader is not None
    hooks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hooks)
    html = "Raises :class:<code>~demine.errors.InconsistentPosition</code>; see :func:<code>demine.analyze</code>."
    assert hooks.on_page_content(html) == (
        "Raises <code>InconsistentPosition</code>; see <code>demine.analyze</code>."
    )
