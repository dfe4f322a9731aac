"""Recorded decisions of real screeners and published LL144 audits, read into one vocabulary
(:mod:`.schema`), loaded per source (:mod:`.sources`: one :class:`DecisionSource` record
each) and analysed the same way (:mod:`.analyses`). docs/DESIGN.md §5."""

from popresume.decisions.sources import (
    RECORDS,
    SOURCES,
    Contrast,
    DecisionSource,
    load,
    load_aclu_ll144,
    load_bertrand_mullainathan,
    load_bloomberg,
    load_derbyshire,
    load_recinq,
    load_webster,
)

__all__ = ["DecisionSource", "Contrast", "RECORDS", "SOURCES", "load", "load_recinq", "load_derbyshire",
           "load_webster", "load_aclu_ll144", "load_bloomberg", "load_bertrand_mullainathan"]
