"""Benchmark of the résumé stage: all 60,884 text résumés, and images/s.

Run: ``.venv/bin/python benchmarks/bench_resumes.py [--images N] [--jobs J]``.
Profiles come from ``popresume.population.generate_population`` (Table 3 sizes);
if that module is not importable, from schema-valid toy profiles of the same size.
Prints the figures; writes nothing outside a temporary folder.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--images", type=int, default=200, help="images to render for the images/s figure")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    from popresume.resumes import build_resumes, render_images, render_texts
    from popresume.resumes.stats import bullet_variety, career_summary, career_table, resume_stats

    t0 = time.perf_counter()
    try:
        from popresume.population import generate_population
        profiles = generate_population(seed=args.seed)
        source = "generate_population"
    except ImportError:
        from popresume.resumes import toy_profiles
        profiles = toy_profiles(seed=args.seed)
        source = "toy_profiles (population module not importable)"
    print(f"profiles: {len(profiles):,} from {source} in {time.perf_counter() - t0:.1f} s "
          f"(cpus: {os.cpu_count()})")

    t0 = time.perf_counter()
    texts = render_texts(profiles, seed=args.seed)
    dt = time.perf_counter() - t0
    print(f"text: {len(texts):,} résumés in {dt:.1f} s = {len(texts) / dt:,.0f} résumés/s "
          f"(target: 60,884 in < 60 s) -> {'PASS' if dt < 60 else 'FAIL'}")

    resumes = build_resumes(profiles, seed=args.seed)
    v = bullet_variety(resumes)
    print("bullet variety (identical full bullet sets within an occupation):")
    print(v.to_string(float_format=lambda x: f"{x:.2e}"))
    print("careers (Appendix B.1 forward rule), per occupation:")
    print(career_summary(career_table(resumes, profiles)).T.to_string(float_format=lambda x: f"{x:.3f}"))
    st = resume_stats(resumes, profiles)
    print(f"tokens per résumé: median {st['n_tokens'].median():.0f}, "
          f"5-95%: {st['n_tokens'].quantile(.05):.0f}-{st['n_tokens'].quantile(.95):.0f}")

    sample = profiles.sample(n=min(args.images, len(profiles)), random_state=args.seed)
    with tempfile.TemporaryDirectory() as d:
        for photo in (False, True):
            out = render_images(sample, d, photo=photo, n_jobs=args.jobs, seed=args.seed, progress=True)
            print(f"images ({'image+photo' if photo else 'image'}, n_jobs={args.jobs}): {len(out)} in "
                  f"{out.attrs['seconds']:.1f} s = {out.attrs['images_per_s']:.1f} images/s "
                  f"(60,884 would take {len(profiles) / out.attrs['images_per_s'] / 60:.0f} min)")


if __name__ == "__main__":
    main()
