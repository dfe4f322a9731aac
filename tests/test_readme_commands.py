"""Every command of the README's command blocks runs, as a new user would copy it (issue 39, item 13).

The README's ``bash`` blocks are read from the file itself, so a command added there is run
here. Sizes are made small (``--n 2000`` -> ``--n 150``, fewer bootstrap draws, one source,
one base résumé, a one-cell audit grid, the influence-function variance instead of the
jackknife's ten refits): the options and files are the README's, the data are small. Lines that are not run say why in :data:`SKIP`. The commands run in order in a
temporary folder, so each finds the files the earlier ones wrote (profiles.parquet,
resumes.parquet, scores.parquet, results.csv), as in a user's session. A chapter that
``book run`` executes must show no error and no stderr output (as the chapter tests check).
"""

from __future__ import annotations

import re
import shlex

import pytest
import yaml

from popresume import paths

pytestmark = pytest.mark.slow

#: Lines not run, and why.
SKIP = {
    "make book": "builds the whole book (the clean-clone CI runs it)",
    "make test": "runs this test suite (it would run itself)",
    "make mutation": "mutation testing, about 15 min (not part of the suite)",
    "source .venv/bin/activate": "a shell step: this test already runs in the environment",
    "popresume serve": "starts a live llama-server on a port (tests/test_llm_server.py starts one)",
    "openai:MODEL@http://127.0.0.1:8080/v1": "needs a live OpenAI-compatible server at a placeholder model",
}
#: Small data: (pattern in the README's line, replacement).
SMALL = [
    (r"--n 2000\b", "--n 150 --n-boot 20 --n-sim 50 --no-tune --no-progress --variance influence"),
    (r"(validate .*)--n 40\b", r"\1--n 5"),
    (r"--leakage\b", "--leakage --leakage-bases 1"),
    (r"configs/default_audit\.yaml", "small_audit.yaml"),
    # chapter 07 (the README's `book run` example) at the small size that checks it runs clean:
    # this is the suite's one run of the chapter (tests/test_causal_notebooks.py no longer runs it)
    (r"-p n 2000\b", "-p n 600 -p reps 4 -p n_boot 50 -p n_demo 1200 -p refit_draws 4 -p variance influence "
                     "--no-progress"),
    (r"(book run notebooks/00_causal_model\.py .*)", r"\1 -p n 2000 --no-progress"),
]
#: Options appended to a verb's line for small data.
APPEND = {
    "generate": ["--n", "150", "--occupations", "nurse"],
    "estimate": ["--n-boot", "0", "--no-tune", "--quiet", "--variance", "influence"],
    "correspondence": ["-n", "40", "--n-boot", "10", "--variance", "influence"],
    "ranking": ["--n-sim", "200"],
    "decisions": ["--source", "webster", "--n-sim", "50"],
}


def readme_commands() -> list[str]:
    """The lines of the README's bash blocks, continuation lines joined."""
    text = (paths.REPO_ROOT / "README.md").read_text(encoding="utf-8")
    lines = []
    for block in re.findall(r"```bash\n(.*?)```", text, flags=re.S):
        for line in block.replace("\\\n", " ").splitlines():
            if line.strip():
                lines.append(line.strip())
    return lines


def _small(line: str) -> list[str] | None:
    if any(key in line for key in SKIP):
        return None
    for pattern, repl in SMALL:
        line = re.sub(pattern, repl, line)
    args = shlex.split(line, comments=True)
    assert args[0] == "popresume", f"a README command that is neither run nor skipped with a reason: {line}"
    return args[1:] + APPEND.get(args[1], [])


def test_the_readme_has_its_command_blocks():
    commands = readme_commands()
    assert any(c.startswith("popresume audit") for c in commands) and len(commands) > 15
    assert all(c.startswith("popresume") or any(k in c for k in SKIP) for c in commands)


def test_every_readme_command_runs_on_small_data(cli, tmp_path, monkeypatch):
    import nbformat
    import numpy as np
    import pandas as pd

    monkeypatch.chdir(tmp_path)
    (tmp_path / "notebooks").symlink_to(paths.REPO_ROOT / "notebooks")
    grid = yaml.safe_load((paths.REPO_ROOT / "configs" / "default_audit.yaml").read_text())
    grid.update(occupations=["nurse"], formats=["text"], attributes=["gender"], sizes=150, n_boot=20)
    grid["screeners"] = [s for s in grid["screeners"] if "text" in s.get("formats", ["text"])]
    (tmp_path / "small_audit.yaml").write_text(yaml.safe_dump(grid))
    rng = np.random.default_rng(0)  # an auditor's own file of decisions (the README's decisions.csv)
    pd.DataFrame({"sex": rng.choice(["F", "M"], 300), "race": rng.choice(["White", "Black", "Asian"], 300),
                  "score": rng.normal(50, 10, 300).round(1)}).to_csv("decisions.csv", index=False)
    ran = []
    for line in readme_commands():
        args = _small(line)
        if args is None:
            continue
        res = cli(*args)
        assert res.exit_code == 0, f"{line}\n-> popresume {' '.join(args)}\n{res.output[-3000:]}"
        ran.append(args[0])
        if args[:2] == ["book", "run"]:  # the executed chapter (its path is the last line printed) runs clean
            nb = nbformat.read(res.output.strip().splitlines()[-1], as_version=4)
            for o in (o for c in nb.cells for o in c.get("outputs", [])):
                assert o.get("output_type") != "error", (line, o)
                assert o.get("name") != "stderr", (line, o.get("text", "")[:300])
    assert {"generate", "render", "validate", "score", "estimate", "audit", "report", "correspondence",
            "ranking", "decisions", "leakage", "book"} <= set(ran)
