"""popresume: causal fairness audits of résumé screeners.

Pipeline (one subpackage or module per stage, see ``ls popresume``):
sources -> population -> resumes -> screeners -> causal -> plots / book,
and the separate leakage audit of "Beyond the Name" in ``popresume.leakage``.
"""

__version__ = "0.1.0"
