"""Profile photos for the image+photo format (PopResume §4.2, Appendix B.5).

A *face source* returns a portrait for a (gender, race, age) cell and a seed. Three
sources:

* :class:`PlaceholderFaceSource` — **the default, and not a face photo**: a grey
  silhouette drawn procedurally, identical for every applicant and labelled
  "PHOTO PLACEHOLDER". It carries no demographic signal at all, so with it the
  image+photo format only tests the layout, not a screener's reaction to faces.
  We ship it because no face generator or licensed face set can run or be
  redistributed here; the paper used Face-MoGLE generations instead.
* :class:`FolderFaceSource` — photos you supply, labelled by folder::

      ROOT/<gender>/<race>/<age band>/*.png|jpg|jpeg|webp
      e.g. ROOT/F/API/25-34/0001.jpg

  ``gender`` in ``popresume.schema.GENDERS`` (F, M), ``race`` in ``RACES`` (White,
  Black, API), age bands ``18-24``, ``25-34``, ``35-44`` by default (``age_bands``
  changes them). A résumé gets a photo from its cell chosen by its seed. Rendering
  stops before the first image, naming the cell and the folder, when a needed cell
  is empty.
* :class:`CallableFaceSource` — any generator ``fn(prompt, seed) -> PIL.Image``
  (a diffusion pipeline, Face-MoGLE, an HTTP client). The prompt is the paper's
  Face-MoGLE prompt by default (:data:`DEFAULT_PROMPT`).
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Callable, Iterable

import matplotlib
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from popresume.schema import GENDERS, RACES

# PopResume §4.2: the prompt given to Face-MoGLE.
DEFAULT_PROMPT = ("a professional headshot portrait photo of a {age} year old {race} {gender}, "
                  "white background, formal attire, front-facing")
DEFAULT_RACE_WORDS = {"White": "White", "Black": "Black", "API": "Asian"}
DEFAULT_GENDER_WORDS = {"F": "woman", "M": "man"}
DEFAULT_AGE_BANDS: tuple[tuple[int, int], ...] = ((18, 24), (25, 34), (35, 44))
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".webp")
PHOTO_SIZE = (300, 370)  # width, height of the portrait before scaling into the page


def photo_seed(seed: int, resume_id: str) -> int:
    """Seed of a résumé's photo draw: a hash of (seed, resume_id), like the text's."""
    h = hashlib.blake2b(f"{int(seed)}\x1fphoto\x1f{resume_id}".encode(), digest_size=8).digest()
    return int.from_bytes(h, "little") >> 1


def _font(size: int, bold: bool = False) -> ImageFont.FreeTypeFont:
    name = "DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf"
    return ImageFont.truetype(str(Path(matplotlib.get_data_path()) / "fonts" / "ttf" / name), size)


class PlaceholderFaceSource:
    """A procedurally drawn grey silhouette: NOT a face photo, the same for everyone."""

    name = "placeholder"
    carries_demographics = False

    def __init__(self) -> None:
        self._img: Image.Image | None = None

    def check(self, cells: Iterable[tuple[str, str, int]]) -> None:
        """Every cell is served (the placeholder ignores it)."""

    def face(self, *, gender: str, race: str, age: int, seed: int) -> Image.Image:
        # gender, race, age and seed are deliberately unused: no demographic signal.
        if self._img is None:
            w, h = PHOTO_SIZE
            img = Image.new("RGB", (w, h), (226, 229, 233))
            d = ImageDraw.Draw(img)
            fill = (160, 166, 174)
            d.ellipse([w * 0.30, h * 0.14, w * 0.70, h * 0.50], fill=fill)  # head
            d.ellipse([w * 0.12, h * 0.54, w * 0.88, h * 1.10], fill=fill)  # shoulders
            f = _font(24, bold=True)
            for text, y in (("PHOTO", h * 0.80), ("PLACEHOLDER", h * 0.88)):
                tw = d.textlength(text, font=f)
                d.text(((w - tw) / 2, y), text, font=f, fill=(255, 255, 255))
            d.rectangle([0, 0, w - 1, h - 1], outline=(150, 150, 150), width=2)
            self._img = img
        return self._img.copy()


class FolderFaceSource:
    """Photos from a folder labelled ``ROOT/<gender>/<race>/<lo>-<hi>/`` (see module doc)."""

    carries_demographics = True

    def __init__(self, root: str | Path, *, age_bands: Iterable[tuple[int, int]] = DEFAULT_AGE_BANDS) -> None:
        self.root = Path(root)
        if not self.root.is_dir():
            raise FileNotFoundError(f"photo folder not found: {self.root}")
        self.age_bands = tuple((int(a), int(b)) for a, b in age_bands)
        self.name = f"folder:{self.root}"
        self._files: dict[tuple[str, str, str], list[Path]] = {}

    def band(self, age: int) -> str:
        for lo, hi in self.age_bands:
            if lo <= int(age) <= hi:
                return f"{lo}-{hi}"
        raise ValueError(f"age {age} is in none of the photo age bands {self.age_bands} of {self.root}")

    def folder(self, gender: str, race: str, age: int) -> Path:
        return self.root / str(gender) / str(race) / self.band(age)

    def _list(self, gender: str, race: str, age: int) -> list[Path]:
        key = (gender, race, self.band(age))
        if key not in self._files:
            d = self.folder(gender, race, age)
            files = sorted(p for p in d.glob("*") if p.suffix.lower() in IMAGE_SUFFIXES) if d.is_dir() else []
            self._files[key] = files
        return self._files[key]

    def check(self, cells: Iterable[tuple[str, str, int]]) -> None:
        """Raise ``FileNotFoundError`` naming the first (gender, race, age band) with no photo."""
        for gender, race, age in cells:
            if gender not in GENDERS or race not in RACES:
                raise ValueError(f"unknown photo group gender={gender!r}, race={race!r}")
            if not self._list(gender, race, age):
                raise FileNotFoundError(
                    f"photo folder {self.root} lacks the group gender={gender}, race={race}, "
                    f"age band {self.band(age)}: no image in {self.folder(gender, race, age)}")

    def face(self, *, gender: str, race: str, age: int, seed: int) -> Image.Image:
        files = self._list(gender, race, age)
        if not files:
            self.check([(gender, race, age)])
        f = files[int(np.random.default_rng(seed).integers(len(files)))]
        with Image.open(f) as im:
            return im.convert("RGB")


class CallableFaceSource:
    """A generator ``fn(prompt, seed) -> PIL.Image`` (or HxWx3 uint8 array), prompted per cell."""

    carries_demographics = True

    def __init__(self, fn: Callable[[str, int], object], *, prompt: str = DEFAULT_PROMPT,
                 gender_words: dict[str, str] | None = None, race_words: dict[str, str] | None = None,
                 name: str | None = None) -> None:
        self.fn = fn
        self.prompt = prompt
        self.gender_words = dict(gender_words or DEFAULT_GENDER_WORDS)
        self.race_words = dict(race_words or DEFAULT_RACE_WORDS)
        self.name = name or f"callable:{getattr(fn, '__name__', type(fn).__name__)}"

    def prompt_for(self, gender: str, race: str, age: int) -> str:
        if gender not in self.gender_words:
            raise ValueError(f"no prompt word for gender {gender!r} (have {list(self.gender_words)})")
        if race not in self.race_words:
            raise ValueError(f"no prompt word for race {race!r} (have {list(self.race_words)})")
        return self.prompt.format(age=int(age), race=self.race_words[race], gender=self.gender_words[gender])

    def check(self, cells: Iterable[tuple[str, str, int]]) -> None:
        for g, r, a in cells:
            self.prompt_for(g, r, a)

    def face(self, *, gender: str, race: str, age: int, seed: int) -> Image.Image:
        out = self.fn(self.prompt_for(gender, race, age), seed)
        if isinstance(out, np.ndarray):
            out = Image.fromarray(out.astype(np.uint8))
        if not isinstance(out, Image.Image):
            raise TypeError(f"face generator {self.name} returned {type(out).__name__}, expected a PIL image")
        return out.convert("RGB")
