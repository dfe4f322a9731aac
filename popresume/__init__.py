"""popresume: causal fairness audits of résumé screeners.

Pipeline (one subpackage or module per stage, see ``ls popresume``):
sources -> population -> resumes -> screeners -> causal -> plots / book,
and the separate leakage audit of "Beyond the Name" in ``popresume.leakage``.
"""

__version__ = "0.1.0"

import os as _os

if _os.environ.get("POPRESUME_CHECK_FIGURES"):
    # the book build checks every figure it shows for overlapping or truncated text
    # (popresume.plots.layout); a reader's own kernel is left alone
    from popresume.plots.layout import install_figure_check as _install

    _install()
