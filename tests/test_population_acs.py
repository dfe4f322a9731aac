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
# (name, width, implied decimals), the layout IPUMS USA gives a rectangular person extract
IPUMS_LAYOUT = [("YEAR", 4, 0), ("SAMPLE", 6, 0), ("SERIAL", 8, 0), ("PERWT", 10, 2), ("SEX", 1, 0),
                ("AGE", 3, 0), ("RACE", 1, 0), ("HISPAN", 1, 0), ("STATEFIP", 2, 0), ("EDUC", 2, 0),
                ("EDUCD", 3, 0), ("EMPSTAT", 1, 0), ("OCC", 4, 0)]

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

COLLECTIONS = {"usa": ("IPUMS USA", "D010.V15.0"), "cps": ("IPUMS CPS", "D030.V12.0"),
               "atus": ("IPUMS ATUS", "D060.V3.2"), "meps": ("IPUMS MEPS", "D071.V2.2")}


def _values(i, row, year):
    perwt, sex, age, race, hispan, fips, educd, emp, occ = row
    return {"YEAR": year, "SAMPLE": year * 100 + 1, "SERIAL": i + 1, "PERWT": perwt, "SEX": sex, "AGE": age,
            "RACE": race, "HISPAN": hispan, "STATEFIP": fips, "EDUC": educd // 10, "EDUCD": educd,
            "EMPSTAT": emp, "OCC": occ, "OCC2010": occ}


def write_ipums_extract(folder: Path, rows=IPUMS_ROWS, layout=IPUMS_LAYOUT, name="usa_00001", *, year=2023,
                        collection="usa", fmt="dat", compress=False, years=None) -> Path:
    """An IPUMS extract as IPUMS delivers it: a DDI 2.5 codebook naming ``<name>.dat`` and the data
    as fixed-width ``.dat`` (implied decimals) or as ``.csv`` (header, decimals written out)."""
    import gzip

    folder.mkdir(parents=True, exist_ok=True)
    years = years or [year] * len(rows)
    recs = [_values(i, r, y) for i, (r, y) in enumerate(zip(rows, years))]
    if fmt == "dat":
        lines = []
        for v in recs:
            cells = []
            for n, w, d in layout:
                x = v[n]
                x = int(round(x * 10 ** d)) if d else x
                cells.append(str(x).rjust(w) if not isinstance(x, str) else x.rjust(w))
            lines.append("".join(cells))
        data = ("\n".join(lines) + "\n").encode()
        ext = ".dat"
    else:
        names = [n for n, _, _ in layout]
        out = [",".join(names)]
        for v in recs:
            out.append(",".join(f"{v[n]:.2f}" if d else str(v[n]) for n, _, d in layout))
        data = ("\n".join(out) + "\n").encode()
        ext = ".csv"
    if compress:
        (folder / f"{name}{ext}.gz").write_bytes(gzip.compress(data))
    else:
        (folder / f"{name}{ext}").write_bytes(data)
    pos = 1
    var_xml = []
    for n, w, d in layout:
        var_xml.append(
            f'<var ID="{n}" dcml="{d}" files="ExtractData" intrvl="{"contin" if n == "PERWT" else "discrete"}" name="{n}">'
            f'<location EndPos="{pos + w - 1}" StartPos="{pos}" width="{w}"/>'
            f"<labl>{n.title()}</labl><txt>{n} description</txt><concept vocab=\"IPUMS\">Person</concept>"
            f'<varFormat schema="other" type="numeric"/></var>')
        pos += w
    title, doi = COLLECTIONS[collection]
    samples = "".join(f'<sumDscr><timePrd date="{y}" event="single">{y}</timePrd><nation abbr="us">United States</nation></sumDscr>'
                      for y in sorted(set(years)))
    xml = f"""<?xml version="1.0" encoding="UTF-8"?>
<codeBook ID="ddi2-test-{name}.dat-{collection}.ipums.org" version="2.5" xmlns="ddi:codebook:2_5">
 <docDscr><citation><titlStmt><titl>Codebook for an {title} Data Extract</titl></titlStmt></citation></docDscr>
 <stdyDscr>
  <citation><titlStmt><titl>User Extract {name}.dat</titl></titlStmt>
   <serStmt><serName abbr="{collection}">{title}</serName><serInfo>DOI:10.18128/{doi}</serInfo></serStmt></citation>
  <stdyInfo>{samples}<notes>Additional notes on a sample that is part of this study:  {year} ACS
</notes></stdyInfo>
  <dataAccs><useStmt><citReq>Cite {title}.</citReq><conditions>Do not redistribute.</conditions></useStmt></dataAccs>
 </stdyDscr>
 <fileDscr ID="ExtractData"><fileTxt><fileName>{name}.dat</fileName><fileCont>Microdata records</fileCont>
  <fileStrc type="rectangular"/><fileType charset="ISO-8859-1">ISO-8859-1 data file</fileType>
  <format>fixed length fields</format><filePlac>IPUMS</filePlac></fileTxt></fileDscr>
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
    tidy = acs.read_ipums(xml, occupations=None)
    _check_mapping(tidy, [r[0] for r in IPUMS_ROWS])
    assert tidy["occ_code"].tolist()[:4] == [3255, 6260, 1021, 800]
    assert set(tidy["year"]) == {2023}
    pd.testing.assert_frame_equal(acs.load_acs(xml, occupations=None), tidy)
    # by default only the five occupations are kept, while reading
    pd.testing.assert_frame_equal(acs.load_acs(xml), tidy[tidy["occupation"].notna()].reset_index(drop=True))
    # IPUMS serves the data gzipped: usa_00001.dat.gz beside the DDI is found too
    import gzip

    dat = tmp_path / "usa_00001.dat"
    (tmp_path / "usa_00001.dat.gz").write_bytes(gzip.compress(dat.read_bytes()))
    dat.unlink()
    pd.testing.assert_frame_equal(acs.read_ipums(xml, occupations=None), tidy)


def test_pums_reader_maps_columns(tmp_path):
    csv = write_pums_csv(tmp_path / "psam_p06.csv")
    tidy = acs.read_pums_csv(csv, occupations=None)
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
    # before 2017 the same zip holds ss16pca.csv (numeric SERIALNO starting with the year)
    old = root / "2016" / "1-Year"
    old.mkdir(parents=True)
    ss16 = pd.read_csv(tmp_path / "psam_p06.csv", dtype=str)
    ss16["SERIALNO"] = [f"2016{i:09d}" for i in range(len(ss16))]
    buf16 = io.BytesIO()
    with zipfile.ZipFile(buf16, "w") as z:
        z.writestr("ss16pca.csv", ss16.to_csv(index=False))
        z.writestr("PUMS_Data_Dictionary_2016.pdf", "dictionary")
    (old / "csv_pca.zip").write_bytes(buf16.getvalue())
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
    assert "7 person records of ACS [2023]" in res.output and "nurse 2" in res.output
    # the tidy Parquet is a valid --acs source
    pd.testing.assert_frame_equal(acs.load_acs(tmp_path / "d" / "acs_tidy.parquet"), tidy)


# ---------------------------------------------------------------- real extracts: what failed there
def test_ipums_csv_extract_loads_from_its_ddi(tmp_path):
    """IPUMS delivers CSV extracts (usa_NNNNN.csv.gz) with a DDI that still names usa_NNNNN.dat."""
    ref = acs.read_ipums(write_ipums_extract(tmp_path / "dat"), occupations=None)
    for compress in (False, True):
        folder = tmp_path / f"csv{compress}"
        xml = write_ipums_extract(folder, fmt="csv", compress=compress)
        assert not (folder / "usa_00001.dat").exists()
        assert "usa_00001.dat" in xml.read_text()
        got = acs.read_ipums(xml, occupations=None)
        pd.testing.assert_frame_equal(got, ref)  # decimals written out in the CSV, implied in the .dat
        assert acs.ipums_data_file(xml).name == ("usa_00001.csv.gz" if compress else "usa_00001.csv")
        # the folder IPUMS unpacks into (one DDI) works as well
        pd.testing.assert_frame_equal(acs.load_acs(folder, occupations=None), ref)
    # and from the CLI, as a user would give it
    from click.testing import CliRunner

    from popresume.cli import main

    out = tmp_path / "profiles.parquet"
    res = CliRunner().invoke(main, ["generate", "--out", str(out), "--occupations", "nurse", "--size", "20",
                                    "--acs", str(tmp_path / "csvTrue" / "usa_00001.xml")])
    assert res.exit_code == 0, res.output
    df = pd.read_parquet(out)
    assert len(df) == 20 and set(df["state"]) == {"CA"} and set(df["edu_level"]) == {"Bachelor's"}
    # the data file given instead of the DDI is pointed back to the DDI
    with pytest.raises(ValueError, match=r"DDI codebook usa_00001\.xml"):
        acs.load_acs(tmp_path / "csvFalse" / "usa_00001.csv")


def test_missing_ipums_data_file_lists_what_was_tried(tmp_path):
    xml = write_ipums_extract(tmp_path)
    (tmp_path / "usa_00001.dat").unlink()
    with pytest.raises(FileNotFoundError, match=r"usa_00001\.dat\.gz, usa_00001\.csv, usa_00001\.csv\.gz"):
        acs.read_ipums(xml)


@pytest.mark.parametrize("collection,title", [("cps", "IPUMS CPS"), ("atus", "IPUMS Time Use"), ("meps", "IPUMS MEPS")])
def test_other_ipums_collection_is_named(tmp_path, collection, title):
    # CPS/ATUS/MEPS extracts carry some of the same names (SEX, AGE, RACE, OCC) but are not the ACS
    xml = write_ipums_extract(tmp_path, name=f"{collection}_00007", collection=collection)
    with pytest.raises(ValueError) as e:
        acs.load_acs(xml)
    msg = str(e.value)
    assert title in msg and "IPUMS USA" in msg and f"{collection}_00007.xml" in msg, msg


def test_occ_codes_read_by_year(tmp_path):
    base = (10.0, 2, 30, 1, 0, 6, 101, 1)
    # 2012: registered nurses 3130 (2010 codes); 2016: software developers 1020; 2018+: 1020 no longer exists
    rows = [(*base, 3130), (*base, 1020), (*base, 1020), (*base, 1021), (*base, 3255)]
    xml = write_ipums_extract(tmp_path, rows=rows, years=[2011, 2016, 2019, 2019, 2014])
    tidy = acs.read_ipums(xml, occupations=None)
    assert tidy["occupation"].tolist()[:2] == ["nurse", "software_developer"]
    assert pd.isna(tidy["occupation"].iloc[2])
    assert tidy["occupation"].tolist()[3:] == ["software_developer", "nurse"]
    assert tidy["year"].tolist() == [2011, 2016, 2019, 2019, 2014]
    # YEAR missing, SAMPLE present: the year is SAMPLE's first four digits
    layout = [v for v in IPUMS_LAYOUT if v[0] != "YEAR"]
    xml2 = write_ipums_extract(tmp_path / "sample_only", rows=rows, years=[2011, 2016, 2019, 2019, 2014], layout=layout)
    pd.testing.assert_frame_equal(acs.read_ipums(xml2, occupations=None), tidy)


def test_pre_2010_occ_codes_are_an_error_not_a_zero_match(tmp_path):
    # the 2005 ACS codes registered nurses as 313 (3-digit 2002 scheme): it can never match
    rows = [(10.0, 2, 30, 1, 0, 6, 101, 1, 313)] * 3
    xml = write_ipums_extract(tmp_path, rows=rows, year=2005)
    with pytest.raises(ValueError, match=r"line 1: YEAR 2005 .*OCC.*OCC2010"):
        acs.load_acs(xml)
    # with IPUMS's harmonized OCC2010 in the extract it is used instead
    layout = IPUMS_LAYOUT + [("OCC2010", 4, 0)]
    rows2 = [(10.0, 2, 30, 1, 0, 6, 101, 1, 3130)] * 3  # OCC2010 3130 = registered nurses
    xml2 = write_ipums_extract(tmp_path / "h", rows=rows2, year=2005, layout=layout)
    tidy = acs.load_acs(xml2)
    assert tidy["occupation"].tolist() == ["nurse"] * 3 and tidy["occ_code"].tolist() == [3130] * 3


def test_no_person_in_the_occupations_is_an_error(tmp_path):
    rows = [(10.0, 2, 30, 1, 0, 6, 101, 1, 4700)] * 4  # retail salespersons only
    xml = write_ipums_extract(tmp_path, rows=rows)
    with pytest.raises(ValueError, match=r"usa_00001\.dat: none of its 4 people .*2023"):
        acs.load_acs(xml)


def test_rows_are_filtered_while_reading_in_chunks(tmp_path, monkeypatch):
    rows = IPUMS_ROWS * 25  # 200 people, 25 of them nurses in the kept races
    xml = write_ipums_extract(tmp_path, rows=rows)
    whole = acs.read_ipums(xml, occupations=["nurse"], chunksize=10_000)
    seen = []
    real = acs.tidy_ipums

    def spy(chunk, *a, **k):
        seen.append(len(chunk))
        return real(chunk, *a, **k)

    monkeypatch.setattr(acs, "tidy_ipums", spy)
    chunked = acs.read_ipums(xml, occupations=["nurse"], chunksize=16)
    assert max(seen) == 16 and sum(seen) == 200  # never more than a chunk in memory
    pd.testing.assert_frame_equal(chunked, whole)
    assert set(chunked["occupation"]) == {"nurse"} and len(chunked) == 50


def test_pre_2017_pums_file_names_are_found(tmp_path):
    # 2016 and earlier: ss16pca.csv / ss16pusa.csv, SERIALNO all digits starting with the year,
    # and software developers are 1020 (2010 codes)
    rows = [(2, 30, 1, 1, 6, 21, 1, "1020", 12), (1, 35, 2, 1, 13, 22, 1, "3255", 8)]
    cols = ["RT", "SERIALNO", "SPORDER", "SEX", "AGEP", "RAC1P", "HISP", "ST", "SCHL", "ESR", "OCCP", "PWGTP"]
    pd.DataFrame([["P", f"2016{i:09d}", 1, *r] for i, r in enumerate(rows)], columns=cols).to_csv(
        tmp_path / "ss16pca.csv", index=False)
    tidy = acs.load_acs(tmp_path)
    assert tidy["occupation"].tolist() == ["software_developer", "nurse"]
    assert tidy["year"].tolist() == [2016, 2016]
    assert [f.name for f in acs.pums_person_files(tmp_path)] == ["ss16pca.csv"]
    # without SERIALNO the year comes from the ssYY name
    pd.read_csv(tmp_path / "ss16pca.csv").drop(columns="SERIALNO").to_csv(tmp_path / "ss16pusb.csv", index=False)
    assert acs.read_pums_csv(tmp_path / "ss16pusb.csv")["year"].tolist() == [2016, 2016]


def test_non_numeric_code_names_column_file_and_line(tmp_path):
    rows = list(PUMS_ROWS)
    rows[4] = (2, "2X", 1, 3, 48, 20, 3, "2310", 5)  # data row 5 = line 6 of the CSV
    csv = write_pums_csv(tmp_path / "psam_p48.csv", rows=rows)
    with pytest.raises(ValueError, match=r"psam_p48\.csv, line 6: column AGEP has the non-numeric value '2X'"):
        acs.load_acs(csv)
    rows[4] = (2, 29, 1, 3, 48, 20, 3, "23l0", 5)  # a mistyped occupation code
    csv = write_pums_csv(tmp_path / "psam_p48.csv", rows=rows)
    with pytest.raises(ValueError, match=r"psam_p48\.csv, line 6: column OCCP has the non-numeric value '23l0'"):
        acs.load_acs(csv)
    # fixed-width IPUMS: line N of the .dat, also in a later chunk
    xml = write_ipums_extract(tmp_path / "ipums", rows=IPUMS_ROWS * 3)
    dat = tmp_path / "ipums" / "usa_00001.dat"
    lines = dat.read_text().splitlines()
    names = [n for n, _, _ in IPUMS_LAYOUT]
    s = sum(w for _, w, _ in IPUMS_LAYOUT[:names.index("EDUCD")])
    e = s + 3  # EDUCD is 3 wide
    assert lines[19][s:e] == "114"  # row 20 is the Master's accountant (kept)
    lines[19] = lines[19][:s] + "1O1" + lines[19][e:]
    dat.write_text("\n".join(lines) + "\n")
    with pytest.raises(ValueError, match=r"usa_00001\.dat, line 20: column EDUCD has the non-numeric value '1O1'"):
        acs.read_ipums(xml, chunksize=7)
    # a bad SEX code reports the file's own line, not a position among the kept rows
    rows = list(PUMS_ROWS)
    rows[5] = (3, 38, 5, 1, 4, 23, 1, "3255", 9)
    csv = write_pums_csv(tmp_path / "psam_p04.csv", rows=rows)
    with pytest.raises(ValueError, match=r"psam_p04\.csv, line 7: column SEX has value '3'"):
        acs.load_acs(csv)


def test_blank_codes_are_missing_not_errors(tmp_path):
    # the real PUMS leaves OCCP, ESR and SCHL blank for children; IPUMS CSV has no blanks but
    # a user's own table may: blanks are "not in the universe", not bad values
    rows = list(PUMS_ROWS) + [(1, 8, 1, 1, 6, "", "", "", 15), (2, 30, 1, 1, 6, 21, "", "3255", 4)]
    csv = write_pums_csv(tmp_path / "psam_p06.csv", rows=rows)
    tidy = acs.read_pums_csv(csv, occupations=None)
    assert len(tidy) == 10 and pd.isna(tidy["occupation"].iloc[8]) and pd.isna(tidy["edu_level"].iloc[8])
    assert tidy["employed"].tolist()[8:] == [False, False]
    assert acs.read_pums_csv(csv)["occupation"].notna().all()
    # a blank in a code every person has (SEX, AGEP, PWGTP) is an error with its line
    rows[-1] = (2, "", 1, 1, 6, 21, 1, "3255", 4)
    csv = write_pums_csv(tmp_path / "psam_p06.csv", rows=rows)
    with pytest.raises(ValueError, match=r"psam_p06\.csv, line 11: column AGEP is empty"):
        acs.load_acs(csv)


def test_download_pre_2017_pums(tmp_path, pums_server):
    base, _ = pums_server
    files = acs.download_pums(2016, tmp_path / "o", state="CA", base_url=base)
    assert [f.name for f in files] == ["ss16pca.csv"]
    tidy = acs.load_acs(files)
    assert set(tidy["year"]) == {2016}
    # the fixture's software developer has the 2018 code 1021, which 2016 (2010 codes: 1020) does not use
    assert len(tidy) == 6 and "software_developer" not in set(tidy["occupation"])


def test_hierarchical_or_yearless_extract_is_named(tmp_path):
    xml = write_ipums_extract(tmp_path / "h")
    text = xml.read_text().replace(
        '<fileStrc type="rectangular"/>',
        '<fileStrc type="hierarchical"><recGrp rectype="H" recidvar="RECTYPE" keyvar="SERIAL"/>'
        '<recGrp rectype="P" recidvar="RECTYPE" keyvar="SERIAL"/></fileStrc>')
    xml.write_text(text)
    with pytest.raises(ValueError, match=r"usa_00001\.xml describes a hierarchical extract; request a rectangular"):
        acs.load_acs(xml)
    layout = [v for v in IPUMS_LAYOUT if v[0] not in ("YEAR", "SAMPLE")]
    xml = write_ipums_extract(tmp_path / "y", layout=layout)
    with pytest.raises(ValueError, match=r"usa_00001\.xml is missing variable\(s\) \['YEAR'\]"):
        acs.load_acs(xml)
