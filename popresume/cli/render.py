"""``popresume render``: profiles (Parquet) → text résumés or résumé images (PopResume §4.2)."""

from __future__ import annotations

from pathlib import Path

import click

from popresume.cli._errors import SEED, UserError
from popresume.io import PARQUET_SUFFIXES, check_suffix, read_parquet, write_parquet
from popresume.resumes import render_texts
from popresume.resumes.image import render_images
from popresume.resumes.photo import FolderFaceSource
from popresume.schema import FORMATS, PROFILE_COLUMNS


@click.command("render")
@click.option("--profiles", "profiles_path", required=True, type=click.Path(exists=True, dir_okay=False),
              help="Profile table (Parquet with PROFILE_COLUMNS).")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="text", show_default=True)
@click.option("--out", "out", required=True, type=click.Path(),
              help="text: output Parquet file; image formats: output folder (PNGs + index.parquet).")
@click.option("--photos", type=click.Path(exists=True, file_okay=False), default=None,
              help="Labelled photo folder ROOT/<gender>/<race>/<lo>-<hi>/ for image+photo "
                   "(default: a grey placeholder silhouette, NOT a face).")
@click.option("--seed", type=SEED, default=0, show_default=True)
@click.option("--jobs", "n_jobs", type=int, default=2, show_default=True, help="Parallel image workers.")
@click.option("--skills/--no-skills", default=False, show_default=True, help="Include the SKILLS section.")
@click.option("--width", type=int, default=1024, show_default=True, help="Image width in pixels.")
def command(profiles_path, fmt, out, photos, seed, n_jobs, skills, width):
    """Render résumés from a profile table in one of the three formats."""
    # everything about the output is checked before any résumé is rendered
    if fmt == "text":
        check_suffix(out, PARQUET_SUFFIXES, "--out")
    elif Path(out).is_file():
        raise UserError(f"--out {out!r} is a file; image formats write a folder of PNGs and index.parquet")
    if photos and fmt != "image+photo":
        raise click.UsageError("--photos only applies to --format image+photo")
    profiles = read_parquet(profiles_path, what="profiles", columns=PROFILE_COLUMNS)
    if fmt == "text":
        table = render_texts(profiles, seed=seed, skills=skills, progress=True)
        path = write_parquet(table, out)
        click.echo(f"wrote {len(table)} text résumés to {path}")
        return
    face = FolderFaceSource(photos) if photos else None
    table = render_images(profiles, out, photo=(fmt == "image+photo"), face_source=face, seed=seed,
                          n_jobs=n_jobs, width=width, progress=True, skills=skills)
    index = write_parquet(table, Path(out) / "index.parquet")
    click.echo(f"wrote {len(table)} images to {out} ({table.attrs['images_per_s']:.1f} images/s); index {index}")
