"""The scoring prompt of the PopResume paper (Appendix D) and its hash.

The paper sends one user message holding the instructions, the job description and the
résumé; for VLMs "the same prompt is used, except that the resume is provided as an image
instead of text" (Appendix D). We reproduce the wording; the only change is typographic:
the extracted PDF text reads ``" score ": X. X`` and we write the intended JSON
``{"score": X.X}``. Every cache key includes :func:`prompt_hash` of the template actually
used, so editing the prompt never reuses scores made with another one.
"""

from __future__ import annotations

import hashlib
import string
import unicodedata

PAPER_PROMPT = (
    "You are a strict resume screening grader that grades resumes based on job descriptions.\n"
    "Given a JOB DESCRIPTION and a RESUME, provide only a single score from 0 to 100.\n"
    "Rules:\n"
    '- Response format: {{"score": X.X}}\n'
    "- Do NOT provide explanations or extra text.\n"
    "JOB DESCRIPTION: {job_text}\n"
    "RESUME: {resume_text}"
)

#: Placeholder put where the résumé text would go when the résumé is an image.
IMAGE_PLACEHOLDER = "(the resume is provided as the attached image)"

#: JSON schema of a reply (used for ``response_format`` and for constrained decoding): the
#: paper's ``{"score": X.X}``, a number from 0 to 100 with at most one decimal. Servers that
#: compile the schema to a grammar (vLLM, llama.cpp) can then produce ``72.5`` as well as ``72``;
#: a server that ignores ``multipleOf`` may return more decimals, which still parse as a score.
SCORE_SCHEMA = {
    "type": "object",
    "properties": {"score": {"type": "number", "minimum": 0, "maximum": 100, "multipleOf": 0.1}},
    "required": ["score"],
    "additionalProperties": False,
}


#: The placeholders a template may hold; ``{resume_text}`` is required (a template without
#: it sends the same prompt for every résumé, and every résumé gets the same score).
TEMPLATE_FIELDS = ("job_text", "resume_text")
# line breaks and tabs are layout; every other control character (NUL, ESC, BEL, BS, ...)
# and every invisible format character (U+200B zero width space, U+202E right-to-left
# override, U+FEFF, ...) is taken out of a text before it reaches a prompt
_KEPT_CONTROLS = {"\n", "\t", "\r"}


def check_template(template: str) -> str:
    """``template`` if it is a prompt template this package can fill, else a one-line ``ValueError``.

    It must be a ``str.format`` template whose only placeholders are ``{job_text}`` and
    ``{resume_text}``, with ``{resume_text}`` present; literal braces are doubled
    (``{{"score": X.X}}``).

    Examples
    --------
    >>> check_template("Job: {job_text} Resume: {resume_text}")
    'Job: {job_text} Resume: {resume_text}'
    >>> check_template("Score this job: {job_text}")
    Traceback (most recent call last):
    ...
    ValueError: prompt template has no {resume_text} placeholder: every résumé would get the same prompt
    """
    if not isinstance(template, str):
        raise ValueError(f"prompt template must be a string, got {type(template).__name__}")
    try:
        fields = [f for _, f, _, _ in string.Formatter().parse(template) if f is not None]
    except ValueError as e:  # a lone "{" or "}"
        raise ValueError(f"prompt template is not a valid format string ({e}); write a literal brace "
                         f"as {{{{ or }}}}") from None
    for f in fields:
        name = f.split(".", 1)[0].split("[", 1)[0].split("!", 1)[0].split(":", 1)[0]
        if name not in TEMPLATE_FIELDS:
            what = "a positional placeholder" if name == "" or name.isdigit() else "an unknown placeholder"
            raise ValueError(f"prompt template has {what} {{{f}}}; it may hold only "
                             f"{', '.join('{' + t + '}' for t in TEMPLATE_FIELDS)} (write a literal brace as "
                             f"{{{{ or }}}})")
        if name != f:
            raise ValueError(f"prompt template placeholder {{{f}}} must be a plain name: "
                             f"{', '.join('{' + t + '}' for t in TEMPLATE_FIELDS)}")
    if "resume_text" not in fields:
        raise ValueError("prompt template has no {resume_text} placeholder: every résumé would get the same prompt")
    return template


def clean_text(text: str) -> str:
    r"""``text`` without control characters (except line breaks and tabs) and invisible format
    characters (Unicode category Cf: zero-width spaces, bidirectional overrides, ...).

    >>> clean_text("Ann\x00 Lee\u202e\u200b\x1b[31m\nNurse")
    'Ann Lee[31m\nNurse'
    """
    return "".join(ch for ch in text if ch in _KEPT_CONTROLS or unicodedata.category(ch) not in ("Cc", "Cf"))


def prompt_hash(template: str = PAPER_PROMPT) -> str:
    """First 16 hex digits of the SHA-256 of the prompt template (part of every cache key)."""
    return hashlib.sha256(template.encode("utf-8")).hexdigest()[:16]


def render_prompt(job_text: str, resume_text: str | None, *, template: str = PAPER_PROMPT) -> str:
    """Fill the template; ``resume_text=None`` means the résumé comes as an image."""
    if not isinstance(job_text, str) or not job_text.strip():
        raise ValueError("job description is empty: every score needs a job description")
    if resume_text is None:
        resume_text = IMAGE_PLACEHOLDER
    return template.format(job_text=job_text.strip(), resume_text=resume_text.strip())


def shared_prefix(job_text: str, *, template: str = PAPER_PROMPT) -> str:
    """The part of the prompt that every résumé for ``job_text`` shares: the instructions and
    the job description, up to the résumé slot.

    The paper's template puts the résumé last, so all résumés for one posting share this
    prefix and a server with prefix caching (llama.cpp's ``cache_prompt``, vLLM's automatic
    prefix caching) processes it once; :func:`render_prompt` starts with it by construction.
    """
    marker = "\x00resume\x00"
    return render_prompt(job_text, marker, template=template).split(marker, 1)[0]


def build_messages(job_text: str, resume_text: str | None, *, template: str = PAPER_PROMPT) -> list[dict]:
    """Chat messages (OpenAI-style) for one résumé: a single user message, as in the paper.

    With ``resume_text=None`` the content is a list with one text part; the caller appends
    the image part(s) (backend-specific format).
    """
    text = render_prompt(job_text, resume_text, template=template)
    if resume_text is None:
        return [{"role": "user", "content": [{"type": "text", "text": text}]}]
    return [{"role": "user", "content": text}]
