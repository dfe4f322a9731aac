"""Reading YAML the one way the package does: safe tags only, and no key written twice.

``yaml.safe_load`` keeps the last of two equal keys in a mapping without a word, so a
config that sets ``folds: 5`` and, further down, ``folds: 2`` runs with 2. :func:`load`
refuses it instead, with a ``yaml.MarkedYAMLError`` that names the key and both lines
(callers already turn a marked YAML error into one line with the file and line).
"""

from __future__ import annotations

import yaml
from yaml.constructor import ConstructorError


class UniqueKeyLoader(yaml.SafeLoader):
    """``yaml.SafeLoader`` that refuses a mapping with the same key twice."""

    def construct_mapping(self, node, deep=False):
        if isinstance(node, yaml.MappingNode):
            seen: dict = {}
            for key_node, _ in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":
                    continue
                key = self.construct_object(key_node, deep=deep)
                try:
                    first = seen.get(key)
                except TypeError:  # an unhashable key: the base class reports it
                    continue
                if first is not None:
                    raise ConstructorError(
                        "while reading a mapping", node.start_mark,
                        f"duplicate key {key!r} (first on line {first}, again on line "
                        f"{key_node.start_mark.line + 1}); write each key once", key_node.start_mark)
                seen[key] = key_node.start_mark.line + 1
        return super().construct_mapping(node, deep=deep)


def load(stream):
    """Parse one YAML document (text or an open file) with :class:`UniqueKeyLoader`."""
    return yaml.load(stream, Loader=UniqueKeyLoader)  # noqa: S506 (a SafeLoader subclass)
