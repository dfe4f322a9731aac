"""``popresume report``: figures and tables from a results table, next to the published ones.

    popresume report --results results.csv --out report/

Writes into OUT: Figure 4 per attribute (``figure4_<attribute>.png``), Figure 5 when the
results hold image / image+photo pairs, the case counts under the paper's rule, Holm and
Benjamini–Hochberg (ours and the published table's), the findings of the published table
that survive each correction, the side-by-side table with the published Tables 4-5
(data/published/popresume_published_pse.csv), and ``README.md`` saying which screener
produced which numbers.
"""

from __future__ import annotations

from pathlib import Path

import click
import matplotlib
import matplotlib.pyplot as plt

from popresume.audit import metrics as audit_metrics
from popresume.audit.grid import read_results
from popresume.cli._errors import OutDir
from popresume.io import write_figure, write_table, write_text
from popresume.plots import audit as audit_plots


def write_report(results, out, *, published=None) -> list[Path]:
    """Write the report files; returns their paths. Pure computation lives in popresume.audit.metrics."""
    matplotlib.use("Agg")

    # both tables are read before the folder is made: a bad input leaves nothing behind
    ours = read_results(results)
    pub = audit_metrics.published_table(published)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []

    def save_fig(fig, name):
        written.append(write_figure(fig, out / name, dpi=110))

    def save_csv(df, name):
        written.append(write_table(df, out / name))

    for attr in sorted(ours["attribute"].unique()):
        save_fig(audit_plots.figure4(ours, attribute=attr), f"figure4_{attr}.png")
    if not audit_plots.photo_pairs(ours).empty:
        save_fig(audit_plots.figure5(ours), "figure5.png")
    save_csv(audit_metrics.side_by_side(ours, pub), "side_by_side.csv")
    ours_counts = audit_metrics.recount_cases(ours)
    pub_counts = audit_metrics.recount_cases(pub)
    save_csv(ours_counts, "case_counts_ours.csv")
    save_csv(pub_counts, "case_counts_published.csv")
    save_csv(audit_metrics.surviving_findings(pub), "published_findings_holm_bh.csv")
    save_csv(audit_metrics.multiplicity_summary(pub).to_frame(), "published_multiplicity_summary.csv")
    save_csv(audit_metrics.te_alone(ours), "te_alone_ours.csv")
    fig, axes = plt.subplots(1, 2, figsize=(11, 3.2))
    audit_plots.plot_case_counts(pub_counts, ax=axes[0], title="published Tables 4-5")
    audit_plots.plot_case_counts(ours_counts, ax=axes[1], title="our run")
    fig.tight_layout()
    save_fig(fig, "case_counts.png")

    by = ours.groupby(["model", "screener_kind", "synthetic"] if "screener_kind" in ours else ["model"],
                      dropna=False)["format"].agg(lambda s: ", ".join(sorted(set(s)))).reset_index()
    lines = ["# Audit report", "", f"Results: `{results}` ({len(ours)} audits).", "",
             "## Which screener produced which numbers", ""]
    for _, r in by.iterrows():
        syn = " — **synthetic**: a known function of the profile, not a real model" if r.get("synthetic") else ""
        lines.append(f"- `{r['model']}`: formats {r['format']}{syn}")
    lines += ["", "Published numbers (Tables 4-5) come from the four LLMs and four VLMs of PopResume §5.1.", "",
              "## Files", ""] + [f"- `{p.name}`" for p in written]
    readme = out / "README.md"
    write_text("\n".join(lines) + "\n", readme)
    written.append(readme)
    return written


@click.command(name="report", context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--results", "results", required=True, type=click.Path(exists=True, dir_okay=False),
              help="Results table written by `popresume audit`.")
@click.option("--out", "out", required=True, type=OutDir(), help="Output folder.")
@click.option("--published", default=None, type=click.Path(exists=True, dir_okay=False),
              help="Published table (default data/published/popresume_published_pse.csv).")
def command(results, out, published):
    """Write figures and tables for RESULTS into OUT."""
    written = write_report(results, out, published=published)
    for p in written:
        click.echo(str(p))
