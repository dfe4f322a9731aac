"""Image and image+photo formats, face sources, and the CLI."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from PIL import Image

from popresume.cli import main
from popresume.resumes import render_images, toy_profiles
from popresume.resumes.photo import DEFAULT_PROMPT, CallableFaceSource, FolderFaceSource, PlaceholderFaceSource


@pytest.fixture(scope="module")
def small():
    return toy_profiles(1, seed=5)  # one per occupation


def test_image_is_a_real_nonblank_png(small, tmp_path):
    out = render_images(small, tmp_path, n_jobs=1, width=1024)
    assert list(out.columns) == ["resume_id", "occupation", "image_path"]
    assert out["resume_id"].tolist() == small["resume_id"].tolist()
    for p in out["image_path"]:
        with open(p, "rb") as f:
            assert f.read(8) == b"\x89PNG\r\n\x1a\n"
        with Image.open(p) as im:
            assert im.size == (1024, round(1024 * 11 / 8.5))
            a = np.asarray(im.convert("L"))
        ink = (a < 128).mean()
        assert 0.005 < ink < 0.2, ink  # text on a white page
        assert (a[:, :40] == 255).all()  # a clean left margin
    assert out.attrs["images_per_s"] > 0


def test_other_width_and_parallel(small, tmp_path):
    out = render_images(small, tmp_path, n_jobs=2, width=768, chunk_size=2)
    with Image.open(out["image_path"].iloc[0]) as im:
        assert im.width == 768
    seq = render_images(small, tmp_path / "seq", n_jobs=1, width=768)
    for a, b in zip(out["image_path"], seq["image_path"]):
        assert np.array_equal(np.asarray(Image.open(a)), np.asarray(Image.open(b)))


def test_photo_changes_only_the_photo_box(small, tmp_path):
    plain = render_images(small.head(1), tmp_path / "a", n_jobs=1)
    photo = render_images(small.head(1), tmp_path / "b", n_jobs=1, photo=True)
    a = np.asarray(Image.open(plain["image_path"][0]).convert("RGB")).astype(int)
    b = np.asarray(Image.open(photo["image_path"][0]).convert("RGB")).astype(int)
    diff = np.argwhere((a != b).any(axis=2))
    assert len(diff) > 1000
    (y0, x0), (y1, x1) = diff.min(axis=0), diff.max(axis=0)
    assert x0 > a.shape[1] * 0.7 and y1 < a.shape[0] * 0.25  # the top-right photo box only


def test_placeholder_carries_no_demographic_signal():
    src = PlaceholderFaceSource()
    a = np.asarray(src.face(gender="F", race="Black", age=22, seed=1))
    b = np.asarray(src.face(gender="M", race="White", age=44, seed=2))
    assert np.array_equal(a, b)
    assert src.carries_demographics is False


def _photo_folder(root, cells):
    for g, r, band, colour in cells:
        d = root / g / r / band
        d.mkdir(parents=True)
        Image.new("RGB", (60, 80), colour).save(d / "a.png")


def test_folder_face_source(small, tmp_path):
    cells = [(g, r, band, (i * 20, 100, 200 - i * 10))
             for i, (g, r, band) in enumerate((g, r, b) for g in ("F", "M") for r in ("White", "Black", "API")
                                              for b in ("18-24", "25-34", "35-44"))]
    _photo_folder(tmp_path / "faces", cells)
    src = FolderFaceSource(tmp_path / "faces")
    out = render_images(small, tmp_path / "img", n_jobs=1, photo=True, face_source=src)
    assert len(out) == len(small)
    im = src.face(gender="F", race="API", age=30, seed=0)
    colour = dict(((g, r, b), c) for g, r, b, c in cells)[("F", "API", "25-34")]
    assert im.getpixel((5, 5)) == colour


def test_folder_lacking_a_group_names_it(small, tmp_path):
    _photo_folder(tmp_path / "faces", [("F", "White", "25-34", (0, 0, 0))])
    src = FolderFaceSource(tmp_path / "faces")
    df = small.copy()
    df.loc[:, ["gender", "race", "age", "birth_year", "exp_year"]] = ["M", "API", 40, 1983, 3]
    with pytest.raises(FileNotFoundError, match=r"gender=M, race=API, age band 35-44"):
        render_images(df, tmp_path / "img", photo=True, face_source=src, n_jobs=1)
    assert not (tmp_path / "img").exists() or not list((tmp_path / "img").glob("*.png"))
    with pytest.raises(FileNotFoundError, match="nowhere"):
        FolderFaceSource(tmp_path / "nowhere")


def test_callable_face_source_uses_the_paper_prompt(small, tmp_path):
    seen = []

    def fake_generator(prompt, seed):
        seen.append((prompt, seed))
        return np.full((64, 64, 3), 128, dtype=np.uint8)

    src = CallableFaceSource(fake_generator)
    render_images(small.head(2), tmp_path, photo=True, face_source=src, n_jobs=1)
    p0 = small.iloc[0]
    assert seen[0][0] == DEFAULT_PROMPT.format(age=p0["age"], race={"White": "White", "Black": "Black",
                                                                    "API": "Asian"}[p0["race"]],
                                               gender={"F": "woman", "M": "man"}[p0["gender"]])
    assert seen[0][0].startswith("a professional headshot portrait photo of a ")
    assert seen[0][1] != seen[1][1]


def test_cli_text_and_images(small, tmp_path):
    prof = tmp_path / "p.parquet"
    small.to_parquet(prof)
    r = CliRunner().invoke(main, ["render", "--profiles", str(prof), "--format", "text",
                                  "--out", str(tmp_path / "t.parquet")])
    assert r.exit_code == 0, r.output
    t = pd.read_parquet(tmp_path / "t.parquet")
    assert list(t.columns) == ["resume_id", "occupation", "text"] and len(t) == len(small)
    r = CliRunner().invoke(main, ["render", "--profiles", str(prof), "--format", "image+photo",
                                  "--out", str(tmp_path / "img"), "--jobs", "1"])
    assert r.exit_code == 0, r.output
    idx = pd.read_parquet(tmp_path / "img" / "index.parquet")
    assert len(idx) == len(small) and all(pd.Series(idx["image_path"]).map(lambda p: p.endswith(".png")))
