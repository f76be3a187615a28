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
#: research log (docs/research/). 15 KB until 2026-12-02, when it held 15,355 bytes and the figures
#: of three more comparisons were on their way (the JSMinesweeper peer, screen reading, no-guess
#: density). Restructured then, with history moved to the research topics, it holds 16 KB; 24 KB
#: leaves those figures room (a table each, 1-3 KB) and keeps the page a two-minute read. 26 KB
#: since 2026-12-03: the larger endgame's adoption table (its six paired runs, 1.5 KB) is a figure
#: users rely on; what was history went to the research log first (issue 37's goal runs), and what
#: is left describes how today's figures were measured. 27 KB since 2026-12-04: the next candidate
#: endgame's 100,000-board paired run (0.6 KB) is the figure its adoption will rest on; two history
#: paragraphs of section 2 went to the research log first.
RESULTS_PAGE_LIMIT = 27 * 1024
#: The research log, one file per topic, and its index.
RESEARCH = ROOT / "docs" / "research"


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


def test_the_results_page_stays_under_its_cap() -> None:
    size = (ROOT / "BENCHMARKS.md").stat().st_size
    assert size < RESULTS_PAGE_LIMIT, (
        f"BENCHMARKS.md is {size} bytes, over {RESULTS_PAGE_LIMIT}: move history to a docs/research/ topic"
    )


def github_anchor(heading: str) -> str:
    """The anchor GitHub gives a Markdown heading: lower case, punctuation dropped, spaces to
    hyphens (``"`best`'s median game (issue 37)"`` -> ``"bests-median-game-issue-37"``)."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(text: str) -> set[str]:
    """Every heading's anchor in a Markdown text, the second of a name as ``name-1`` and so on."""
    seen: dict[str, int] = {}
    out = set()
    prose = re.sub(r"^```.*?^```", "", text, flags=re.M | re.S)
    for heading in re.findall(r"^#{1,6} (.+)$", prose, flags=re.M):
        base = github_anchor(heading)
        out.add(base if base not in seen else f"{base}-{seen[base]}")
        seen[base] = seen.get(base, 0) + 1
    return out


def relative_links(text: str) -> list[str]:
    """The targets of a Markdown text's links and pictures that point into the repository (code
    spans and fenced blocks left out)."""
    text = re.sub(r"^```.*?^```", "", text, flags=re.M | re.S)
    text = re.sub(r"`[^`\n]*`", "", text)
    targets = re.findall(r"\]\(([^)\s]+)\)", text)
    return [t for t in targets if not re.match(r"[a-z]+:", t)]


def test_the_anchor_rule_is_githubs() -> None:
    assert github_anchor("3. The strongest player (issue 5)") == "3-the-strongest-player-issue-5"
    assert github_anchor("The goal's runs with `--repeat`") == "the-goals-runs-with---repeat"
    assert anchors("# A\n## b\n```\n# not a heading\n```\n## B\n") == {"a", "b", "b-1"}


DOCS = [
    "README.md",
    "BENCHMARKS.md",
    "CONTRIBUTING.md",
    "CHANGELOG.md",
    "benchmarks/README.md",
    "docs/research-log.md",
    "docs/big-runs.md",
]


@pytest.mark.parametrize(
    "page", DOCS + [str(p.relative_to(ROOT)) for p in sorted(RESEARCH.glob("*.md"))], ids=str
)
def test_every_link_of_the_docs_resolves(page: str) -> None:
    path = ROOT / page
    broken = []
    for target in relative_links(path.read_text(encoding="utf-8")):
        file, _, anchor = target.partition("#")
        dest = (path.parent / file).resolve() if file else path
        lost = not dest.exists() or (
            bool(anchor) and dest.suffix == ".md" and anchor not in anchors(dest.read_text(encoding="utf-8"))
        )
        if lost:
            broken.append(target)
    assert broken == [], f"{page}: links to nothing: {broken}"


def test_the_research_index_lists_every_topic_and_each_opens_with_what_was_learned() -> None:
    index = (RESEARCH / "README.md").read_text(encoding="utf-8")
    listed = {Path(t.partition("#")[0]).name for t in relative_links(index)}
    for topic in sorted(RESEARCH.glob("*.md")):
        if topic.name == "README.md":
            continue
        assert topic.name in listed, f"docs/research/README.md does not link {topic.name}"
        text = topic.read_text(encoding="utf-8")
        sections = re.findall(r"^## (.+)$", text, flags=re.M)
        assert text.startswith("# ") and sections[:1] == ["What was learned"], (
            f"{topic.name} must open with its title, then '## What was learned'"
        )
    # the file list names every topic once, with what it holds
    table = re.findall(r"^\| \[([\w.-]+\.md)\]\(\1\) \| .+ \|$", index, flags=re.M)
    topics = sorted(p.name for p in RESEARCH.glob("*.md") if p.name != "README.md")
    assert sorted(table) == topics


def test_the_benchmarks_readme_describes_every_script() -> None:
    text = (ROOT / "benchmarks" / "README.md").read_text(encoding="utf-8")
    scripts = sorted(p.name for p in (ROOT / "benchmarks").glob("*.py") if p.name != "__init__.py")
    missing = [s for s in scripts if f"`{s}`" not in text]
    assert missing == [], f"benchmarks/README.md does not describe {missing}"


def test_the_old_research_log_is_only_a_pointer_to_the_topics() -> None:
    # notes go to docs/research/, so the old file must not grow again
    text = (ROOT / "docs" / "research-log.md").read_text(encoding="utf-8")
    assert len(text) < 1024 and "research/README.md" in text
    for page in DOCS[:-1]:
        assert "research-log.md)" not in (ROOT / page).read_text(encoding="utf-8"), page


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
    # the puzzles are a package of their own (demine.puzzles), not re-exported by demine
    from demine import puzzles

    on_pages = set(re.findall(r"^::: demine\.puzzles\.(\w+)", pages, flags=re.M))
    missing = sorted(set(puzzles.__all__) - on_pages)
    assert missing == [], f"add these to docs/reference/api/puzzles.md: {missing}"


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
