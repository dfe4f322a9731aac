"""Secrets a screener holds (an API key, a base-URL password) and how text is scrubbed of them.

A secret belongs to the object that holds it: :class:`~popresume.screeners.openai_http.OpenAIScreener`
builds its :class:`Secrets` at construction from its key and its URL credentials, and every
text it prints, stores or returns (replies, error messages) passes through its
:meth:`Secrets.scrub`. Nothing is registered process-wide, so two screeners never see each
other's secrets and a test never has to reset a global (docs/DESIGN.md §4).

A server may echo what it was sent; a basic-auth password then comes back base64-encoded
inside ``Basic …``, so the encoded forms are secrets too.
"""

from __future__ import annotations

import base64
import re
from dataclasses import dataclass

# the user:password@ of any URL inside a text
_URL_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)[^/\s@]+@")
#: Shorter strings are not treated as secrets: replacing them would corrupt ordinary text.
MIN_SECRET_CHARS = 4


def hide_url_credentials(text: str | None) -> str | None:
    """``text`` with the ``user:password@`` of every URL in it replaced by ``***@``."""
    if text is None:
        return None
    return _URL_USERINFO.sub(r"\1***@", text)


def basic_auth_forms(user: str, password: str) -> tuple[str, ...]:
    """What a basic-auth credential looks like on the wire: ``user:password`` and its base64
    (the ``Authorization: Basic …`` value a server may echo)."""
    pair = f"{user}:{password}"
    return (password, pair, base64.b64encode(pair.encode("utf-8")).decode("ascii"))


@dataclass(frozen=True)
class Secrets:
    """The secrets of one screener; immutable once built.

    Examples
    --------
    >>> s = Secrets.of("sk-abc123", *basic_auth_forms("alice", "pw-1234"))
    >>> s.scrub("key sk-abc123, url http://alice:pw-1234@host/v1")
    'key ***, url http://***@host/v1'
    >>> s.found_in("a reply") is None
    True
    """

    values: frozenset = frozenset()

    @classmethod
    def of(cls, *values: str | None) -> "Secrets":
        """The secrets among ``values`` (``None`` and strings shorter than :data:`MIN_SECRET_CHARS`
        are dropped)."""
        return cls(frozenset(v for v in values if v and len(v) >= MIN_SECRET_CHARS))

    def scrub(self, text: str | None) -> str | None:
        """``text`` with each secret replaced by ``***`` (longest first, so a secret that
        contains another is replaced whole) and URL credentials hidden."""
        if text is None:
            return None
        text = hide_url_credentials(text)
        for s in sorted(self.values, key=len, reverse=True):
            if s in text:
                text = text.replace(s, "***")
        return text

    def found_in(self, *texts: str) -> str | None:
        """A description of the first secret found in ``texts`` (never the secret), or None."""
        for t in texts:
            if any(s in t for s in self.values):
                return "a secret of the screener (API key or URL password)"
        return None

    def __repr__(self) -> str:  # never shows a secret
        return f"Secrets(<{len(self.values)} hidden>)"


#: A screener without secrets.
NO_SECRETS = Secrets()
