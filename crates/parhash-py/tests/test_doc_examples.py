"""The Python examples of README.md and docs/*.md, run as doctests so that the documentation
cannot drift from the package.

Every ```pycon block of a markdown file is one part of that file's doctest: the blocks run in
order with shared names, in a fresh copy of crates/parhash-cli/tests/doc-examples (the input
files the examples name, shared with the command-line examples), with doctest's ELLIPSIS
(``...`` matches any text). Other blocks (```python, ```sh) are not run.
"""

import doctest
import pathlib
import re
import shutil

import pytest

REPO = pathlib.Path(__file__).resolve().parents[3]
FIXTURES = REPO / "crates" / "parhash-cli" / "tests" / "doc-examples"
DOCUMENTS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]

_BLOCK = re.compile(r"^```pycon\n(.*?)^```$", re.MULTILINE | re.DOTALL)


def pycon_only(text):
    """`text` with everything outside ```pycon blocks blanked, lines kept where they were (so a
    failure names the markdown file's own line)."""
    out = [""] * (text.count("\n") + 1)
    for match in _BLOCK.finditer(text):
        first = text.count("\n", 0, match.start(1))
        for offset, line in enumerate(match.group(1).split("\n")[:-1]):
            out[first + offset] = line
    return "\n".join(out)


def run_examples(text, name, filename):
    """Runs the doctest in `text`; returns (failed, attempted, report)."""
    test = doctest.DocTestParser().get_doctest(text, {}, name, filename, 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    report = []
    runner.run(test, out=report.append)
    failed, attempted = runner.summarize(verbose=False)
    return failed, attempted, "".join(report)


def documents_with_examples():
    return [doc for doc in DOCUMENTS if _BLOCK.search(doc.read_text(encoding="utf-8"))]


def test_the_examples_are_found():
    """README.md and docs/python.md keep their examples (a renamed block would silently run
    nothing)."""
    found = {doc.relative_to(REPO).as_posix() for doc in documents_with_examples()}
    assert {"README.md", "docs/python.md"} <= found


@pytest.mark.parametrize("doc", documents_with_examples(), ids=lambda p: p.relative_to(REPO).as_posix())
def test_examples_run_as_written(doc, tmp_path, monkeypatch):
    sandbox = tmp_path / "examples"
    shutil.copytree(FIXTURES, sandbox)
    monkeypatch.chdir(sandbox)
    text = pycon_only(doc.read_text(encoding="utf-8"))
    failed, attempted, report = run_examples(text, doc.name, str(doc))
    assert attempted > 0
    assert failed == 0, report


def test_a_wrong_example_fails():
    """The runner above does fail: a block whose expected output is wrong is reported."""
    text = pycon_only('Text.\n\n```pycon\n>>> import parhash\n>>> parhash.md5(b"").hexdigest()\n'
                      "'00000000000000000000000000000000'\n\n```\n")
    failed, attempted, report = run_examples(text, "wrong", "wrong.md")
    assert (failed, attempted) == (1, 2)
    assert "d41d8cd98f00b204e9800998ecf8427e" in report
