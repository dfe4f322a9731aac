"""The chapters' figures as functions of ``popresume.plots``: each returns a Figure whose axes
carry the numbers it was given, and none trips the book's layout check."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from matplotlib.container import BarContainer  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from popresume.plots import audit, causal, correspondence, decisions, leakage, population, resumes  # noqa: E402
from popresume.plots.layout import figure_problems  # noqa: E402
from popresume.schema import PSE_NAMES  # noqa: E402


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _clean(fig) -> Figure:
    assert isinstance(fig, Figure)
    assert figure_problems(fig) == []
    return fig


def _bar_heights(ax) -> list[float]:
    """Heights of the bars drawn with ``bar`` (bands and legend boxes are patches too, not bars)."""
    return [p.get_height() for c in ax.containers if isinstance(c, BarContainer) for p in c]


def _wide(models=("m1", "m2"), occupation="Nurses", attribute="gender", fmt="text", shift=0.0) -> pd.DataFrame:
    rows = []
    for k, m in enumerate(models):
        row = {"attribute": attribute, "occupation": occupation, "format": fmt, "model": m}
        for j, e in enumerate(PSE_NAMES):
            est = shift + 0.5 * j - k
            row |= {f"{e}_estimate": est, f"{e}_ci_low": est - 0.3, f"{e}_ci_high": est + 0.3}
        rows.append(row)
    return pd.DataFrame(rows)


# ---- popresume.plots.causal -------------------------------------------------------------

def test_gap_and_effects_draws_the_gap_and_the_exact_effects():
    effects = pd.DataFrame({"exact": [1.0, 2.0, -1.0, -0.5, -0.5], "simulated": [1.1, 2.0, -0.9, -0.6, -0.4],
                            "mc_se": [0.05] * 5}, index=list(PSE_NAMES))
    fig = _clean(causal.plot_gap_and_effects(3.5, effects))
    ax = fig.axes[0]
    assert _bar_heights(ax) == [3.5, 1.0, 2.0, -1.0, -0.5, -0.5]
    points = [c for c in ax.get_children() if hasattr(c, "get_ydata") and len(np.atleast_1d(c.get_ydata())) == 5]
    assert any(np.allclose(line.get_ydata(), effects["simulated"]) for line in points)


def test_rows_by_model_draws_the_chosen_rows_for_every_model():
    table = pd.DataFrame({"model a": [1.0, 2.0, 3.0], "model b": [-1.0, 0.5, 0.0]}, index=["r1", "r2", "r3"])
    fig = _clean(causal.plot_rows_by_model(table, ["r1", "r3"], ylabel="BIE"))
    assert sorted(_bar_heights(fig.axes[0])) == sorted([1.0, -1.0, 3.0, 0.0])
    assert fig.axes[0].get_ylabel() == "BIE"


def test_effects_with_truth_and_coverage_figure():
    long = pd.DataFrame({"estimate": [1.0, 0.5, 0.5, 0.2, 0.3], "ci_low": [0.5, 0.0, 0.1, -0.1, 0.0],
                         "ci_high": [1.5, 1.0, 0.9, 0.5, 0.6]}, index=pd.Index(list(PSE_NAMES), name="effect"))
    truth = pd.Series([1.1, 0.4, 0.7, 0.3, 0.4], index=list(PSE_NAMES))
    fig = _clean(causal.plot_effects_with_truth(long, truth, title="synthetic, n = 100"))
    assert np.allclose(fig.axes[0].collections[-1].get_offsets()[:, 1], truth)
    cov = pd.DataFrame({"effect": list(PSE_NAMES), "method": "DML", "coverage": [0.95, 0.9, 0.93, 0.96, 0.94],
                        "n_reps": 50})
    est = pd.DataFrame({"effect": np.repeat(list(PSE_NAMES), 4), "method": "DML", "estimate": np.arange(20.0)})
    fig = _clean(causal.coverage_figure(cov, est, truth, title="95% CI coverage (ours)"))
    assert [round(h, 2) for h in _bar_heights(fig.axes[0])] == [0.95, 0.9, 0.93, 0.96, 0.94]
    assert fig.axes[0].get_title() == "95% CI coverage (ours)"


# ---- popresume.plots.correspondence -----------------------------------------------------

def test_causal_graphs_reuse_the_design_graph():
    fig = _clean(correspondence.plot_causal_graphs())
    titles = [ax.get_title() for ax in fig.axes]
    assert titles == ["(a) Standard Fairness Model", "(b) mediators split into B (blue) and R (red)"]
    labels = {t.get_text() for t in fig.axes[0].texts}
    assert {"X", "Z", "W", "Y"} <= labels
    assert {"X", "Z", "R", "B", "Y"} <= {t.get_text() for t in fig.axes[1].texts}


def _gaps(run=None, n=100):
    t = pd.DataFrame({"attribute": ["race", "race"], "contrast": ["Black − White"] * 2,
                      "source": ["recruiters (B&M callbacks)", "screener (ours)"], "gap_pp": [-3.0, 1.0],
                      "gap_ci_low_pp": [-4.5, -0.5], "gap_ci_high_pp": [-1.5, 2.5], "n": n})
    return t if run is None else t.assign(run=run)


def test_gap_figures_draw_each_gap():
    fig = _clean(correspondence.gaps_figure(_gaps(), title="Callback gaps (ours)"))
    assert np.allclose(fig.axes[0].collections[-1].get_offsets()[:, 0], [-3.0, 1.0])
    both = pd.concat([_gaps("run A", 1200), _gaps("run B", 900)], ignore_index=True)
    fig = _clean(correspondence.gaps_by_run(both, run="run"))
    assert len(fig.axes) == 2
    assert fig.axes[0].get_title().startswith("run A, 1,200 résumés")
    assert fig.axes[1].get_title().startswith("run B, 900 résumés")


def test_table1_and_name_peaks_figures():
    ours = pd.DataFrame({"white_pct": [9.65, 10.1], "black_pct": [6.45, 6.7]}, index=["All sent", "Chicago"])
    pub = pd.DataFrame({"white_pct": [9.65, 8.06], "black_pct": [6.45, 5.40]}, index=["All sent", "Chicago"])
    fig = _clean(correspondence.table1_figure(ours, pub))
    assert sorted(p.get_width() for c in fig.axes[0].containers for p in c) == sorted([9.65, 10.1, 6.45, 6.7])
    peaks = pd.DataFrame({"race": ["White", "Black"], "sex": ["f", "f"], "peak_year": [1975, 1980]},
                         index=["Emily", "Lakisha"])
    fig = _clean(correspondence.name_peaks_figure(peaks))
    assert sorted(fig.axes[0].collections[0].get_offsets()[:, 0]) == [1975, 1980]


# ---- popresume.plots.audit ---------------------------------------------------------------

def test_audit_wrappers_carry_their_tables():
    photo = pd.concat([_wide(fmt="image"), _wide(fmt="image+photo", shift=1.0)], ignore_index=True)
    fig = _clean(audit.photo_shift_figure(photo, photo, ours_label="ours (synthetic screener)"))
    assert [ax.get_title() for ax in fig.axes] == ["published VLMs", "ours (synthetic screener)"]
    grid = pd.concat([_wide(occupation=o, attribute=a) for o in ("Nurses", "Teachers") for a in ("gender", "race")],
                     ignore_index=True)
    fig = _clean(audit.effects_by_occupation(grid, title="ours: embedding screener"))
    assert fig._suptitle.get_text() == "ours: embedding screener"
    assert sum(ax.get_visible() and ax.axison for ax in fig.axes) == 2
    fig = _clean(audit.effects_figure(_wide(), label="model", title="ours (synthetic): by partition"))
    assert fig.axes[0].get_title() == "ours (synthetic): by partition"


def test_coarsening_adjusted_p_and_case_count_figures():
    coarse = pd.DataFrame({"attribute": ["gender"] * 2 + ["race"] * 2, "screener": ["s"] * 4,
                           "mediators": ["coarse", "fine"] * 2, "NDE_estimate": [0.5, 0.1, -0.2, 0.0],
                           "NDE_ci_low": [0.2, -0.2, -0.5, -0.3], "NDE_ci_high": [0.8, 0.4, 0.1, 0.3],
                           "true_NDE": 0.0})
    fig = _clean(audit.coarsening_figure(coarse))
    assert len(fig.axes) == 2 and "gender" in fig.axes[0].get_title() and "race" in fig.axes[1].get_title()
    tests = pd.DataFrame({"p": [0.001, 0.02, 0.3], "p_holm": [0.003, 0.04, 0.3], "p_bh": [0.003, 0.03, 0.3]})
    fig = _clean(audit.adjusted_p_figure(tests, title="published: recovered p-values"))
    assert np.allclose(fig.axes[0].get_lines()[0].get_ydata(), [0.001, 0.02, 0.3])
    counts = pd.DataFrame({"none": [5, 3], "holm": [4, 2]}, index=["C1", "C2"])
    fig = _clean(audit.case_counts_figure(counts, title="published audits per case"))
    assert _bar_heights(fig.axes[0]) == [5, 3, 4, 2]


def test_four_fifths_and_ll144_figures():
    cmp = pd.DataFrame({"four_fifths_ratio": [0.7, 1.0, 0.95], "NDE_estimate": [1.0, 0.0, 0.2],
                        "disagreement": ["", "yes", None]})
    fig = _clean(audit.four_fifths_figure(cmp, title="ours: four-fifths vs NDE"))
    drawn = np.vstack([c.get_offsets() for c in fig.axes[0].collections if len(c.get_offsets())])
    assert sorted(drawn[:, 1]) == [0.7, 0.95, 1.0]
    ratios = pd.DataFrame({"breakdown": ["sex", "sex"], "category": ["Female", "Male"], "impact_ratio": [0.75, 1.0],
                           "ci_low": [0.6, 1.0], "ci_high": [0.9, 1.0]})
    fig = _clean(audit.ll144_titled(ratios, title="ours (pass validity): LL144 impact ratios"))
    assert sorted(fig.axes[0].collections[-1].get_offsets()[:, 0]) == [0.75, 1.0]


# ---- popresume.plots.leakage -------------------------------------------------------------

def test_leakage_task_figures():
    judge = "embedding:all-MiniLM-L6-v2"
    rec = pd.DataFrame({"judge": judge, "tier": ["T1", "T2", "T3", "all"], "metric": "recovery",
                        "estimate": [0.9, 0.6, 0.3, 0.6], "ci_low": [0.8, 0.5, 0.2, 0.5], "ci_high": [1.0, 0.7, 0.4, 0.7]})
    conf = pd.DataFrame([[0.8, 0.2], [0.3, 0.7]], index=["Anglo", "Chinese"], columns=["Anglo", "Chinese"])
    fig = _clean(leakage.task1_figure(rec, conf, title="Task 1 confusion (ours)"))
    assert [round(h, 2) for h in _bar_heights(fig.axes[0])] == [0.9, 0.6, 0.3, 0.6]
    assert np.allclose(fig.axes[1].images[0].get_array(), conf.to_numpy())
    regimes = pd.DataFrame({"judge": judge, "regime": np.repeat(["Forbidden", "Neutral", "Encouraged"], 2),
                            "metric": ["tie_rate", "first_position_rate"] * 3, "estimate": [0.0, 0.5, 0.3, 0.4, 0.6, 0.2],
                            "ci_low": 0.0, "ci_high": 0.7})
    srr = pd.DataFrame({"regime": ["Neutral"], "condition": ["Chinese"], "ratio": [0.9], "ci_low": [0.8], "ci_high": [1.0]})
    fig = _clean(leakage.task2_figure(regimes, srr, title="Selection-rate ratio (ours)"))
    assert fig.axes[1].get_title() == "Selection-rate ratio (ours)"
    diffs = pd.DataFrame({"condition": ["Chinese", "Indian"], "difference": [-1.0, 2.0], "ci_low": [-2.0, 1.0],
                          "ci_high": [0.0, 3.0]})
    tsr = pd.DataFrame({"judge": judge, "condition": ["Anglo", "Chinese"], "estimate": [0.4, 0.3], "ci_low": [0.3, 0.2],
                        "ci_high": [0.5, 0.4]})
    fig = _clean(leakage.task3_figure(diffs, tsr, title="Score difference (ours)"))
    assert [round(h, 2) for h in _bar_heights(fig.axes[1])] == [0.4, 0.3]


# ---- popresume.plots.population ----------------------------------------------------------

def test_population_figures_carry_their_numbers():
    nurses = pd.DataFrame({"seed": [0.6, 0.5], "generated": [0.62, 0.48], "seed n": [300, 40]}, index=["F", "M"])
    fig = _clean(population.plot_seed_associations({"Nurses, by gender (ours; seed: GSS)": ("gender", nurses)}))
    assert _bar_heights(fig.axes[0]) == [0.6, 0.5, 0.62, 0.48]  # the "seed n" column is not drawn
    assoc = pd.DataFrame({"occupation": ["nurse", "teacher"], "contrast": ["F vs M", "F vs M"],
                          "seed log OR": [0.2, -0.1], "seed se": [0.1, 0.1], "gen log OR": [0.25, -0.05],
                          "gen se": [0.05, 0.05]})
    fig = _clean(population.plot_log_odds_ratios(assoc, ["seed", "gen"], title="Ours: associations"))
    xs = [line.get_xdata() for line in fig.axes[0].get_lines() if len(line.get_xdata()) == 2]
    assert any(np.allclose(x, [0.2, -0.1]) for x in xs) and any(np.allclose(x, [0.25, -0.05]) for x in xs)
    idx = pd.MultiIndex.from_product([["gender", "race"], ["BIE"], ["nurse", "teacher"]],
                                     names=["attribute", "effect", "occupation"])
    shift = pd.DataFrame({"seeded": [1.0, 2.0, 3.0, 4.0], "flat": [0.5, 0.5, 0.0, 0.0]}, index=idx)
    fig = _clean(population.plot_effect_by_population(shift))
    assert _bar_heights(fig.axes[0]) == [1.0, 2.0, 0.5, 0.5]
    assert _bar_heights(fig.axes[1]) == [3.0, 4.0, 0.0, 0.0]


def test_truncated_draws_and_age_groups():
    draws = {21: np.array([0, 1, 1, 2, 3, 3, 3]), 35: np.array([5, 8, 8, 10])}
    fig = _clean(population.plot_truncated_draws(draws, {21: 1.5, 35: 9.0}, {21: 2.0, 35: 3.0}))
    assert np.allclose(_bar_heights(fig.axes[0]), np.array([1, 2, 1, 3]) / 7)
    assert np.allclose(_bar_heights(fig.axes[1]), np.array([1, 2, 1]) / 4)
    profiles = pd.DataFrame({"fn_age": ["young"] * 3 + ["old"] * 2, "age": [22, 23, 23, 40, 41]})
    fig = _clean(population.plot_age_by_group(profiles, groups=("young", "old")))
    assert [t.get_text() for t in fig.axes[0].get_legend().get_texts()] == ["young (n=3)", "old (n=2)"]


# ---- popresume.plots.resumes --------------------------------------------------------------

def test_resume_figures(tmp_path):
    stats = pd.DataFrame({"occupation": ["nurse", "nurse", "teacher"], "n_tokens": [300, 340, 420],
                          "exp_year": [2, 5, 9], "n_roles": [1, 2, 3], "edu_level": ["Bachelor's", "Bachelor's",
                                                                                    "Master's"],
                          "n_education": [1, 1, 2]})
    fig = _clean(resumes.corpus_figure(stats, title="ours: generated"))
    assert fig._suptitle.get_text() == "ours: generated"
    assert sorted(p.get_width() for c in fig.axes[2].containers for p in c) == [1.0, 2.0]
    for name in ("a.png", "b.png"):
        plt.imsave(tmp_path / name, np.full((40, 30, 3), 0.5))
    fig = _clean(resumes.resume_image_pair(tmp_path / "a.png", tmp_path / "b.png", titles=("image", "image + photo")))
    assert [ax.get_title() for ax in fig.axes] == ["image", "image + photo"]
    assert fig.axes[0].images[0].get_array().shape[:2] == (40, 30)


# ---- popresume.plots.decisions ------------------------------------------------------------

def test_decision_figures_carry_their_numbers():
    fit = pd.DataFrame({"source": ["derbyshire", "webster"], "model": ["gpt-5.1", "chat"], "estimate": [10.0, 2.0],
                        "ci_low": [5.0, -1.0], "ci_high": [15.0, 5.0]})
    fig = _clean(decisions.contrast_forest(fit, xlabel="own − mismatched", title="Job fit (ours)"))
    assert np.allclose(fig.axes[0].get_lines()[0].get_xdata(), [10.0, 2.0])
    names = pd.DataFrame({"model": ["a", "a", "b"], "effect": [0.1, -0.2, 0.3]})
    fig = _clean(decisions.names_vs_placebos(names, {"a": pd.Series([0.0, 0.05]), "b": pd.Series([0.1])},
                                             title="Name effects (ours)"))
    offsets = [c.get_offsets() for c in fig.axes[0].collections]
    assert np.allclose(sorted(np.vstack(offsets)[:, 0]), sorted([0.0, 0.05, 0.1, 0.1, -0.2, 0.3]))
    wide = pd.DataFrame({"matched": [5.0, 1.0], "stuffed": [0.5, 3.0]}, index=["s1", "s2"])
    fig = _clean(decisions.labelled_scatter(wide, "matched", "stuffed", title="Competence (ours)"))
    assert np.allclose(fig.axes[0].collections[0].get_offsets(), wide.to_numpy())
    assert [t.get_text() for t in fig.axes[0].texts] == ["s1", "s2"]


def test_ll144_published_figures():
    table = pd.DataFrame({"published_ratio": [0.7, 2.0, 0.9], "ratio": [0.7, 1.0, 0.85],
                          "status": ["reproduced", "not reproducible", "reproduced"], "n": [50, 2000, 10],
                          "chance": [0.3, 0.01, 0.6]})
    fig = _clean(decisions.published_vs_recomputed(table, ["reproduced", "not reproducible"], title="ours (ACLU)"))
    first, second = (c.get_offsets() for c in fig.axes[0].collections[:2])
    assert np.allclose(first, [[0.7, 0.7], [0.85, 0.9]])
    assert np.allclose(second, [[1.0, 1.5]])  # clipped at 1.5
    fig = _clean(decisions.chance_by_n(table, table.iloc[:1], "chance", title="ours (ACLU)"))
    assert np.allclose(fig.axes[0].collections[1].get_offsets(), [[50, 0.3]])
    with pytest.raises(ValueError, match="chance"):
        decisions.chance_by_n(table.drop(columns="chance"), table, "chance", title="t")


def test_coverage_by_n_draws_each_row_with_its_wilson_interval():
    rows = pd.DataFrame({"quantity": ["TE", "RIE", "TE", "RIE"],
                         "setting": ["L: good overlap, n=1000"] * 2 + ["L: good overlap, n=4000"] * 2,
                         "rate": [0.95, 0.90, 0.94, 0.93], "coverage_low": [0.92, 0.86, 0.91, 0.90],
                         "coverage_high": [0.97, 0.93, 0.96, 0.95], "estimable_share": [1.0, 0.8, 1.0, 0.9],
                         "estimable_share_low": [0.99, 0.75, 0.99, 0.86], "estimable_share_high": [1.0, 0.84, 1.0, 0.93]})
    fig = _clean(causal.plot_coverage_by_n(rows, title="ours: made-up rows"))
    left, right = fig.axes[:2]
    for ax, col in ((left, "rate"), (right, "estimable_share")):
        ys = {c.get_label(): c.lines[0].get_ydata() for c in ax.containers}  # one errorbar container per effect
        assert list(ys) == ["TE", "RIE"]
        assert list(ys["TE"]) == list(rows.loc[rows["quantity"] == "TE", col])
        assert list(ys["RIE"]) == list(rows.loc[rows["quantity"] == "RIE", col])
    bars = {c.get_label(): c.lines[2][0].get_segments() for c in left.containers}
    assert [s[:, 1].tolist() for s in bars["RIE"]] == [[0.86, 0.93], [0.90, 0.95]]  # Wilson ends, not ±SE
    assert [t.get_text() for t in left.get_xticklabels()] == ["1,000", "4,000"]
    with pytest.raises(ValueError, match="n=<n>"):
        causal.plot_coverage_by_n(rows.assign(setting="no size"))
