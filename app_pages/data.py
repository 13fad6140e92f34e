"""Data: upload files (and a scales file), see what each load did, the ingest log, declared scales, quarantine."""

from __future__ import annotations

import datetime as dt

import pandas as pd
import streamlit as st

from analytics.describe import overview
from analytics.ingest import FORMATS, datasets, unload
from analytics.ingest.base import FormatOptions
from analytics.ingest.load import ingest_bytes, ingest_file
from analytics.ingest.samples import GUIDES, Guide
from analytics.ingest.scales_file import ScalesError, declare_scales_upload, declared_scales
from analytics.store import people
from ui import charts, identity, state
from ui.tables import table
from ui.text import md_escape, visible

identity.require("page:data")  # the navigation hides it too; a page run directly stops here

ROLE_CHOICES = {
    "As in the data (contractor unless a row says researcher)": None,
    "Researcher": "researcher",
    "Contractor": "contractor",
}

st.title("Data")


def format_guide(guide: Guide) -> None:
    """One format: the choice to make, when to use it, the fields it reads, and its sample file to download."""
    st.markdown(f"**{md_escape(guide.title)}**: Format `{guide.name}`")
    st.caption(md_escape(guide.when))
    st.markdown(
        "\n".join(f"- `{f.name}`: {md_escape(f.holds)}{'' if f.required else ' (optional)'}" for f in guide.fields)
    )
    st.download_button(
        f"Download a sample ({guide.file_name})",
        lambda: guide.sample.encode(),  # written when clicked, as every download is
        file_name=guide.file_name,
        mime=guide.mime,
        key=f"sample_{guide.name}",
        on_click="ignore",
    )


def formats_section() -> None:
    """Every format Concord reads, folded: its fields, when to use it and a sample file that loads as it is."""
    with st.expander("Formats: what each file holds, with a sample to download"):
        st.caption(
            "One tab per choice under Format; auto recognises every format but wide. Each sample loads as it is; "
            "fields marked optional may be left out."
        )
        for tab, guide in zip(st.tabs(list(GUIDES)), GUIDES.values(), strict=True):  # one format at a time
            with tab:
                format_guide(guide)


# The one upload limit: server.maxUploadSize in .streamlit/config.toml, shown, enforced by the browser, the server
# and again here, with the command line named for larger files.
UPLOAD_MB = int(st.get_option("server.maxUploadSize"))

if identity.allowed("upload"):  # uploads write: lead and researcher (analytics/access/roles.py)
    if refused := state.handover_refusal():
        st.warning(md_escape(f"Command-line loads are not handed over to this dashboard: {refused}"))
    # Outside the form, so that choosing a format shows that format's options at once.
    fmt = st.columns(3)[0].selectbox(
        "Format",
        ["auto", *FORMATS],
        key="upload_format",
        help="auto recognises every format but wide (an items x raters table: choose wide). Formats, below, "
        "describes each one with a sample file.",
    )
    formats_section()

    with st.form("upload", clear_on_submit=True):
        u1, u2 = st.columns([2, 1])
        files = u1.file_uploader(
            "Rating files or a rater directory (CSV, Parquet, JSON, JSONL; several at once)",
            accept_multiple_files=True,
            key="upload_files",
            max_upload_size=UPLOAD_MB,
            help=f"Up to {UPLOAD_MB} MB per file. Load larger files with the command line: "
            "`python -m analytics ingest FILE`.",
        )
        scales_upload = u2.file_uploader(
            "Scales file (optional, JSON)",
            type=["json"],
            key="upload_scales",
            help="Declares dimensions' levels, their order and level of measurement; applied before the rating files. "
            'It can be loaded alone. Example: {"scales": [{"dimension": "score", "level": "ordinal", '
            '"levels": [1, 2, 3, 4, 5]}]}',
        )
        c2, c3 = st.columns(2)
        role_label = c2.selectbox("Whose labels are these?", list(ROLE_CHOICES), key="upload_role")
        undated_day = c3.date_input(
            "Date for files without dates (optional)",
            value=None,
            key="upload_undated",
            help="Article Likert files carry no dates: their topics get this day (00:00 UTC), or the load time when it "
            "is empty. Each file's result says which. Files with their own dates keep them.",
        )
        id_column = wide_dimension = researchers = ls_config = None
        include_predictions = False
        if fmt == "wide":
            w1, w2, w3 = st.columns(3)
            id_column = w1.text_input(
                "Item id column (optional)",
                key="upload_id_column",
                help="Default: the first column when its header is id, item, unit, units, subject, group or task_id; "
                "else items are numbered by row. Every other column is a rater.",
            )
            wide_dimension = w2.text_input(
                "Dimension (optional)", key="upload_wide_dimension", help="Default: the file's name without extension."
            )
            researchers = w3.text_input(
                "Researcher columns (optional)", key="upload_researchers", help="Column names, separated by commas."
            )
        elif fmt == "label_studio":
            l1, l2, l3 = st.columns(3)
            ls_config = l1.file_uploader(
                "Labelling config (optional, XML)",
                type=["xml"],
                key="upload_ls_config",
                help="The project's labelling config: each Choices, Rating, Number, Taxonomy and Pairwise tag declares "
                "its dimension's levels in order. Without it scales are inferred (or declared by a scales file).",
            )
            researchers = l2.text_input(
                "Annotators who are researchers (optional)",
                key="upload_researchers",
                help="Label Studio user ids, separated by commas; ground-truth annotations are researchers anyway.",
            )
            include_predictions = l3.checkbox(
                "Include predictions as raters", key="upload_include_predictions", help="Each model version is a rater."
            )
        submitted = st.form_submit_button("Load files")

    if submitted and not files and scales_upload is None:
        st.warning("Choose at least one file first.")
    elif submitted:
        st.session_state["last_scales"], st.session_state["last_results"] = None, []
        refused = None
        if scales_upload is not None:
            try:  # declared first, alone: a scales file that cannot be read or contradicts a stored scale stops here
                declared = declare_scales_upload(state.cursor(), scales_upload.getvalue(), scales_upload.name)
                st.session_state["last_scales"] = declared.message
            except ScalesError as e:
                refused = str(e)
        if refused:
            st.error(f"The scales file was refused, nothing was loaded: {md_escape(refused)}", icon=None)
        elif files:
            options = FormatOptions(
                id_column=id_column or None,
                wide_dimension=wide_dimension or None,
                researchers=FormatOptions.names(researchers),
                include_predictions=include_predictions,
                ls_config=ls_config.getvalue().decode("utf-8-sig", errors="replace") if ls_config else None,
            )
            results = []
            bar = st.progress(0.0, text="Loading...")
            for i, f in enumerate(files, start=1):

                def show(share: float, stage: str, done: int = i - 1, name: str = md_escape(f.name)) -> None:
                    bar.progress(min(1.0, (done + share) / len(files)), text=f"{name}: {stage}...")

                show(0.0, "starting")
                role = ROLE_CHOICES[role_label]
                results.append(
                    ingest_bytes(
                        state.cursor(),
                        f.getvalue(),
                        f.name,
                        fmt=fmt,
                        role=role,
                        upload_limit_mb=UPLOAD_MB,
                        on_progress=show,
                        undated_at=dt.datetime.combine(undated_day, dt.time.min, dt.UTC) if undated_day else None,
                        options=options,
                    )
                )
            bar.progress(1.0, text="Done")
            st.session_state["last_results"] = [r.as_dict() for r in results]
        st.cache_data.clear()

    if st.session_state.get("last_scales"):
        st.subheader("This upload")
        st.success(md_escape(st.session_state["last_scales"]))
    if st.session_state.get("last_results"):
        if not st.session_state.get("last_scales"):
            st.subheader("This upload")
        for r in st.session_state["last_results"]:
            name = md_escape(r["file"])  # file names and messages come from the upload: alerts render markdown
            line = f"{name} ({r['format']}): {r['status']}, {r['rows_loaded']:,} rows loaded, {r['rows_quarantined']:,} quarantined"
            if r["status"] == "rejected":
                st.error(
                    f"{name} was rejected, nothing was written: {md_escape(r['errors'][0] if r['errors'] else '')}",
                    icon=None,
                )
            elif r["status"] == "already_loaded":
                st.info(f"{name}: the same content was loaded before; nothing changed.")
            elif r["rows_quarantined"]:
                st.warning(line)
            else:
                st.success(line)
            for note in r.get("notes", []):
                st.info(md_escape(note))
        table(
            pd.DataFrame(st.session_state["last_results"]).assign(
                errors=lambda d: d["errors"].map(" | ".join), notes=lambda d: d["notes"].map(" | ".join)
            ),
            "upload results",
        )

else:
    formats_section()  # what each format holds, also for those who read the data without loading it

con = state.cursor()
st.subheader("Ingest log")
log = overview.ingest_log(con)
table(log, "ingest log")


def unload_section(log: pd.DataFrame) -> None:
    """Unload one file, after a confirmation naming what goes; the ingest log keeps who did it and when."""
    if st.session_state.get("unload_done"):
        st.success(md_escape(st.session_state.pop("unload_done")))
    if log.empty:
        return
    labels = {
        int(i): f"#{i} {name} ({n:,} ratings, loaded {at:%Y-%m-%d %H:%M})"
        for i, name, n, at in zip(log["ingest_id"], log["file_name"], log["rows_loaded"], log["loaded_at"], strict=True)
    }
    with st.expander("Unload a file"):
        chosen = st.selectbox("File", list(labels), format_func=lambda i: labels[i], key="unload_pick")
        if st.session_state.get("unload_confirm") != chosen:
            if st.button("Unload this file...", key="unload_ask"):
                st.session_state["unload_confirm"] = chosen
                st.rerun()
            return
        row = log[log["ingest_id"] == chosen].iloc[0]
        st.warning(
            md_escape(
                f"Unloading {row['file_name']} deletes its {int(row['rows_loaded']):,} ratings, "
                f"{int(row['rows_quarantined']):,} quarantined rows, its submissions, and the tasks and items no "
                "other file uses, in one transaction. Review notes and scales stay. This cannot be undone here; "
                "the same file can be loaded again."
            ),
            icon=None,
        )
        st.caption(md_escape(f"Recorded in the ingest log as unloaded by {identity.author()}."))
        b1, b2 = st.columns(2)
        if b1.button("Yes, unload it", type="primary", key="unload_yes"):
            try:
                removed = unload.unload_file(state.cursor(), int(chosen), identity.author())
            except KeyError:
                st.session_state["unload_done"] = f"{row['file_name']} was already unloaded."
            else:
                st.session_state["unload_done"] = (
                    f"Unloaded {row['file_name']}: {removed['ratings']:,} ratings, {removed['quarantine']:,} "
                    f"quarantined rows, {removed['submissions']:,} submissions, {removed['tasks']:,} tasks removed."
                )
            st.session_state.pop("unload_confirm", None)
            st.cache_data.clear()
            st.rerun()
        if b2.button("Cancel", key="unload_no"):
            st.session_state.pop("unload_confirm", None)
            st.rerun()


if identity.allowed("unload"):
    unload_section(log)
gone = unload.unloads(con)
if gone:
    st.caption("Unloaded files (who unloaded them and when)")
    table(
        pd.DataFrame(
            gone, columns=["ingest_id", "file_name", "rows_loaded", "loaded_at", "unloaded_by", "unloaded_at"]
        ),
        "unloaded files",
    )


def datasets_section() -> None:
    """The real public datasets: what is on this machine and loaded, and loading one with a click."""
    listed = pd.DataFrame(datasets.listing(con))
    if listed.empty:
        return
    st.subheader("Datasets")
    st.caption(
        "Real public rating datasets (the source column names where each comes from), read from "
        f"{md_escape(str(datasets.real_data_dir()))} (set CONCORD_REAL_DATA to use another folder)."
    )
    table(listed[["name", "title", "format", "present", "loaded", "source"]], "datasets")
    ready = listed[listed["present"] & ~listed["loaded"]]
    if not identity.allowed("upload"):
        return
    if ready.empty:
        st.caption("Every dataset present on this machine is loaded." if listed["present"].any() else "")
        return
    titles = dict(zip(ready["name"], ready["title"], strict=True))
    pick = st.selectbox("Dataset", list(titles), format_func=lambda n: f"{n}: {titles[n]}", key="dataset_pick")
    if st.button("Load this dataset", key="dataset_load"):
        row = ready[ready["name"] == pick].iloc[0]
        with st.spinner(f"Loading {pick}..."):
            result = ingest_file(state.cursor(), row["path"], fmt=row["format"])
        st.session_state["last_scales"], st.session_state["last_results"] = None, [result.as_dict()]
        st.cache_data.clear()
        st.rerun()


datasets_section()
people_table = people.directory(con)
if not people_table.empty:
    st.subheader("Rater directory")
    st.caption(
        "One person, one id: ratings under an alias count as the person's everywhere (Formats, above: rater "
        "directory). Unload the directory file above to give them their own ids back."
    )
    outside = people_table[people_table["ratings_outside_active"] > 0]
    if not outside.empty:
        st.warning(
            f"{len(outside)} person(s) have ratings dated outside their active period: "
            + ", ".join(md_escape(r) for r in outside["rater_id"])
        )
    table(people_table, "rater directory")

scales = declared_scales(con)
if not scales.empty:
    st.subheader("Declared scales")
    st.caption("From scales files. Rubric * applies to every rubric outside the catalogue, also ones loaded later.")
    table(scales, "declared scales")

st.subheader("Quarantine")
by_field = overview.quarantine_by_reason(con)
if by_field.empty:
    st.success("Nothing is in quarantine.")
else:
    charts.show(st, charts.quarantine_by_field(by_field), width="stretch")
    names = ["All files", *by_field["file_name"].drop_duplicates().tolist()]
    chosen = st.selectbox("File", names, key="quarantine_file", format_func=visible)
    q = overview.quarantine(con, None if chosen == "All files" else chosen)
    st.caption(f"{len(q):,} quarantined rows. Each keeps its file, line or record, field, raw value and reason.")
    table(q, "quarantine")
