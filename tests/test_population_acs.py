"""ACS readers (IPUMS DDI + fixed-width, Census PUMS CSV), P̂1 from ACS, and the downloader.

Fixtures are written here in the real formats: an IPUMS DDI 2.5 codebook with a rectangular
fixed-width .dat, and a psam_p*.csv with the Census PUMS column names; the downloader runs
against a real HTTP server on loopback.
"""

from __future__ import annotations

import http.server
import io
import threading
import zipfile
from functools import partial
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from popresume.population import generate_population, p1_table
from popresume.sources import acs

# ---------------------------------------------------------------- fixtures in the real formats
# (name, width, implied decimals)
IPUMS_LAYOUT = [("YEAR", 4, 0), ("SERIAL", 8, 0), ("PERWT", 10, 2), ("SEX", 1, 0), ("AGE", 3, 0),
                ("RACE", 1, 0), ("HISPAN", 1, 0), ("STATEFIP", 2, 0), ("EDUC", 2, 0), ("EDUCD", 3, 0),
                ("EMPSTAT", 1, 0), ("OCC", 4, 0)]

# one row per case we check: (PERWT, SEX, AGE, RACE, HISPAN, STATEFIP, EDUCD, EMPSTAT, OCC)
IPUMS_ROWS = [
    (12.5, 2, 30, 1, 0, 6, 101, 1, 3255),   # F White CA Bachelor's, nurse
    (40.0, 1, 25, 2, 0, 13, 63, 1, 6260),   # M Black GA HS, construction laborer
    (7.25, 2, 41, 4, 0, 36, 116, 1, 1021),  # F API (Chinese) NY Doctorate, software developer
    (3.0, 1, 33, 6, 0, 53, 114, 1, 800),    # M API WA Master's, accountant
    (5.0, 2, 29, 1, 2, 48, 81, 3, 2310),    # F White Hispanic TX Associate's, not employed, teacher
    (9.0, 1, 38, 3, 0, 4, 115, 1, 3255),    # M AIAN (Other) AZ Professional, nurse
    (2.0, 2, 22, 8, 0, 11, 71, 1, 9999),    # F two races (Other) DC some college, other job
    (1.0, 1, 27, 1, 0, 17, 40, 1, 6260),    # M White IL below HS -> edu missing
]


def write_ipums_extract(folder: Path, rows=IPUMS_ROWS, layout=IPUMS_LAYOUT, name="usa_00001") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    lines = []
    for i, (perwt, sex, age, race, hispan, fips, educd, emp, occ) in enumerate(rows):
        vals = {"YEAR": 2023, "SERIAL": i + 1, "PERWT": int(round(perwt * 100)), "SEX": sex, "AGE": age,
                "RACE": race, "HISPAN": hispan, "STATEFIP": fips, "EDUC": educd // 10, "EDUCD": educd,
                "EMPSTAT": emp, "OCC": occ}
        lines.append("".join(str(vals[n]).rjust(w) for n, w, _ in layout if n in vals))
    (folder / f"{name}.dat").write_text("\n".join(lines) + "\n")
    pos = 1
    var_xml = []
    for n, w, d in layout:
        dcml = f' dcml="{d}"' if d else ' dcml="0"'
        var_xml.append(
            f'<var ID="{n}" name="{n}"{dcml} intrvl="{"contin" if n == "PERWT" else "discrete"}">'
            f'<location StartPos="{pos}" EndPos="{pos + w - 1}" width="{w}"/>'
            f"<labl>{n.title()}</labl><txt>{n} description</txt><concept>Person</concept>"
            f'<varFormat type="numeric" schema="other"/></var>')
        pos += w
    xml = f"""<?xml version="1.0" encoding="UTF-8"?>
<codeBook xmlns="ddi:codebook:2_5" version="2.5">
 <stdyDscr>
  <citation><titlStmt><titl>IPUMS USA test extract</titl></titlStmt>
   <serStmt><serName abbr="usa">IPUMS USA</serName><serInfo>https://doi.org/10.18128/D010.V15.0</serInfo></serStmt></citation>
  <stdyInfo><notes>ACS 2023: us2023a</notes></stdyInfo>
  <dataAccs><useStmt><citReq>Cite IPUMS USA.</citReq><conditions>Do not redistribute.</conditions></useStmt></dataAccs>
 </stdyDscr>
 <fileDscr ID="F1"><fileTxt><fileName>{name}.dat</fileName><fileCont>test</fileCont>
  <fileStrc type="rectangular"/><fileType charset="UTF-8">ascii</fileType><format>fixed length fields</format>
  <filePlac>IPUMS</filePlac></fileTxt></fileDscr>
 <dataDscr>{''.join(var_xml)}</dataDscr>
</codeBook>"""
    path = folder / f"{name}.xml"
    path.write_text(xml)
    return path


# (SEX, AGEP, RAC1P, HISP, ST, SCHL, ESR, OCCP, PWGTP)
PUMS_ROWS = [
    (2, 30, 1, 1, 6, 21, 1, "3255", 12),   # F White CA Bachelor's, nurse
    (1, 25, 2, 1, 13, 16, 1, "6260", 40),  # M Black GA HS diploma
    (2, 41, 6, 1, 36, 24, 2, "1021", 7),   # F API NY Doctorate, employed not at work
    (1, 33, 7, 1, 53, 22, 4, "0800", 3),   # M NHPI (API) WA Master's, armed forces
    (2, 29, 1, 3, 48, 20, 3, "2310", 5),   # F White Hispanic TX Associate's, unemployed
    (1, 38, 5, 1, 4, 23, 1, "3255", 9),    # M AIAN (Other) AZ Professional
    (2, 22, 9, 1, 11, 19, 1, "9999", 2),   # F two+ races DC some college
    (1, 27, 1, 1, 17, 12, 1, "6260", 1),   # M White IL below HS
]


def write_pums_csv(path: Path, rows=PUMS_ROWS, drop=()) -> Path:
    cols = ["RT", "SERIALNO", "SPORDER", "SEX", "AGEP", "RAC1P", "HISP", "ST", "SCHL", "ESR", "OCCP", "PWGTP"]
    recs = [["P", f"2023GQ{i:07d}", 1, *r] for i, r in enumerate(rows)]
    df = pd.DataFrame(recs, columns=cols).drop(columns=list(drop))
    df.to_csv(path, index=False)
    return path


EXPECTED = pd.DataFrame({
    "occupation": ["nurse", "construction_laborer", "software_developer", "accountant", "teacher", "nurse", None, "construction_laborer"],
    "gender": ["F", "M", "F", "M", "F", "M", "F", "M"],
    "race": ["White", "Black", "API", "API", "White", "Other", "Other", "White"],
    "hispanic": [False, False, False, False, True, False, False, False],
    "age": [30, 25, 41, 33, 29, 38, 22, 27],
    "state": ["CA", "GA", "NY", "WA", "TX", "AZ", "DC", "IL"],
    "edu_level": ["Bachelor's", "High school graduate/GED", "Doctorate", "Master's", "Associate's degree",
                  "Professional degree", "Some college (no degree)", None],
    "employed": [True, True, True, True, False, True, True, True],
})


def _check_mapping(tidy: pd.DataFrame, weights):
    assert list(tidy.columns) == list(acs.TIDY_COLUMNS)
    for c in EXPECTED.columns:
        got = [None if pd.isna(v) else v for v in tidy[c].tolist()]
        want = [None if pd.isna(v) else v for v in EXPECTED[c].tolist()]
        assert got == want, c
    np.testing.assert_allclose(tidy["weight"].to_numpy(), weights)


def test_ipums_reader_maps_columns(tmp_path):
    xml = write_ipums_extract(tmp_path)
    tidy = acs.read_ipums(xml)
    _check_mapping(tidy, [r[0] for r in IPUMS_ROWS])
    assert tidy["occ_code"].tolist()[:4] == [3255, 6260, 1021, 800]
    pd.testing.assert_frame_equal(acs.load_acs(xml), tidy)
    # IPUMS serves the data gzipped: usa_00001.dat.gz beside the DDI is found too
    import gzip

    dat = tmp_path / "usa_00001.dat"
    (tmp_path / "usa_00001.dat.gz").write_bytes(gzip.compress(dat.read_bytes()))
    dat.unlink()
    pd.testing.assert_frame_equal(acs.read_ipums(xml), tidy)


def test_pums_reader_maps_columns(tmp_path):
    csv = write_pums_csv(tmp_path / "psam_p06.csv")
    tidy = acs.read_pums_csv(csv, occupations_only=False)
    _check_mapping(tidy, [r[-1] for r in PUMS_ROWS])
    # default keeps only the five occupations
    assert acs.read_pums_csv(csv)["occupation"].notna().all()
    # a folder of psam_p*.csv is read too
    assert len(acs.load_acs(tmp_path)) == 7


def test_missing_pums_column_is_named(tmp_path):
    csv = write_pums_csv(tmp_path / "psam_p06.csv", drop=("SCHL",))
    with pytest.raises(ValueError, match="SCHL"):
        acs.load_acs(csv)


def test_missing_ipums_variable_is_named(tmp_path):
    layout = [v for v in IPUMS_LAYOUT if v[0] != "EDUCD"]
    xml = write_ipums_extract(tmp_path, layout=layout)
    with pytest.raises(ValueError, match="EDUCD"):
        acs.read_ipums(xml)


def test_unreadable_ddi_names_file(tmp_path):
    bad = tmp_path / "usa_00002.xml"
    bad.write_text("<codeBook><this is not xml")
    with pytest.raises(ValueError, match="usa_00002.xml"):
        acs.load_acs(bad)
    with pytest.raises(FileNotFoundError, match="nothere.xml"):
        acs.load_acs(tmp_path / "nothere.xml")


def test_tidy_table_missing_column():
    with pytest.raises(ValueError, match="weight"):
        acs.load_acs(EXPECTED.assign(occ_code=1))


def _synthetic_pums(path: Path, n=400, seed=0):
    """Nurses who are all Black women in GA or MD with a master's, ages 30-40."""
    rng = np.random.default_rng(seed)
    rows = [(2, int(rng.integers(30, 41)), 2, 1, int(rng.choice([13, 24])), 22, 1, "3255", int(rng.integers(1, 50)))
            for _ in range(n)]
    rows += [(1, 35, 1, 1, 6, 21, 3, "3255", 10)]  # unemployed: must be dropped
    return write_pums_csv(path, rows=rows)


def test_generate_from_acs_uses_weighted_microdata(tmp_path):
    csv = _synthetic_pums(tmp_path / "psam_p99.csv")
    p1 = p1_table("nurse", acs=csv)
    assert p1["p"].sum() == pytest.approx(1.0)
    df = generate_population(["nurse"], 300, seed=0, acs=csv)
    assert set(df["gender"]) == {"F"} and set(df["race"]) == {"Black"}
    assert set(df["state"]) <= {"GA", "MD"} and set(df["edu_level"]) == {"Master's"}
    assert df["age"].between(30, 40).all()
    assert (df["exp_year"] <= df["age"] - 18).all()
    # weights matter: cell shares follow PWGTP
    tidy = acs.load_acs(csv)
    t = tidy[tidy.employed]
    ga = t.loc[t.state == "GA", "weight"].sum() / t["weight"].sum()
    assert p1.groupby("state")["p"].sum()["GA"] == pytest.approx(ga)


def test_acs_errors(tmp_path):
    csv = _synthetic_pums(tmp_path / "psam_p99.csv")
    with pytest.raises(ValueError, match="teacher"):
        generate_population(["teacher"], 10, acs=csv)  # no teachers in the file
    with pytest.raises(ValueError, match="45-60 is outside the ages in the ACS data"):
        generate_population(["nurse"], 10, acs=csv, age_range=(45, 60))  # data only has ages 30-40
    with pytest.raises(ValueError, match="16-44"):
        generate_population(["nurse"], 10, acs=csv, age_range=(16, 44))


# ---------------------------------------------------------------- downloader on loopback
@pytest.fixture()
def pums_server(tmp_path):
    root = tmp_path / "www"
    folder = root / "2023" / "1-Year"
    folder.mkdir(parents=True)
    buf = io.BytesIO()
    csv_text = (write_pums_csv(tmp_path / "psam_p06.csv")).read_text()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("psam_p06.csv", csv_text)
        z.writestr("ACS2023_PUMS_README.pdf", "readme")
    (folder / "csv_pca.zip").write_bytes(buf.getvalue())
    handler = partial(http.server.SimpleHTTPRequestHandler, directory=str(root))
    handler.log_message = lambda *a, **k: None
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    t = threading.Thread(target=httpd.serve_forever, daemon=True)
    t.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}", csv_text
    httpd.shutdown()
    httpd.server_close()


def test_download_pums_from_loopback(tmp_path, pums_server):
    base, csv_text = pums_server
    out = tmp_path / "out"
    files = acs.download_pums(2023, out, state="CA", base_url=base)
    assert [f.name for f in files] == ["psam_p06.csv"]
    assert files[0].read_text() == csv_text
    assert (out / "csv_pca.zip").exists()
    assert not list(out.glob(".*tmp"))  # no temporary leftovers
    assert acs.pums_url(2023, "ca", base_url=base).endswith("/2023/1-Year/csv_pca.zip")


def test_download_missing_file_leaves_nothing(tmp_path, pums_server):
    base, _ = pums_server
    out = tmp_path / "out"
    with pytest.raises(FileNotFoundError, match="404"):
        acs.download_pums(2023, out, state="TX", base_url=base)
    assert not out.exists() or not any(out.iterdir())
    with pytest.raises(ValueError, match="ZZ"):
        acs.download_pums(2023, out, state="ZZ", base_url=base)


def test_cli_data_acs(tmp_path, pums_server):
    from click.testing import CliRunner

    from popresume.cli import main

    base, _ = pums_server
    res = CliRunner().invoke(main, ["data", "acs", "--year", "2023", "--state", "CA", "--out", str(tmp_path / "d"),
                                    "--base-url", base])
    assert res.exit_code == 0, res.output
    tidy = pd.read_parquet(tmp_path / "d" / "acs_tidy.parquet")
    assert set(tidy["occupation"].dropna()) == {"nurse", "construction_laborer", "software_developer", "accountant", "teacher"}
