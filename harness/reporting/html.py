"""The paper report: executed notebooks as one self-contained HTML page, and its summary.

``paper.html`` has one section per artifact: the notebook's Markdown (rendered with
markdown-it), its tables (pandas' HTML) and its figures (PNG embedded as ``data:`` URIs), so
the file opens anywhere with nothing beside it; code sits folded under each output. On top,
the summary table: every number the notebooks compared (``summary/<artifact>.json``,
:func:`harness.paper.nb.emit`), paper value, ours (mean ± 95% CI), ratio, note. ``paper.md``
is that summary table in Markdown. Both open with the verdicts of Figure 8's runs
(:mod:`harness.reporting.verdict`): per run its headline (:mod:`.headline`), then one box per
comparison of ADMS with a Band or TFLite row, its word in colour.
"""

from __future__ import annotations

import html
import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from markdown_it import MarkdownIt

from harness.reporting import headline, verdict
from harness.reporting.verdict import Verdict

_MD = MarkdownIt("commonmark").enable("table")
SUMMARY_COLUMNS = ("artifact", "quantity", "kind", "paper", "ours (mean ± 95% CI)",
                   "ratio ours/paper", "note")
STYLE = """
body{font-family:sans-serif;max-width:1200px;margin:auto;padding:1em;color:#222}
table{border-collapse:collapse;font-size:12px;margin:.5em 0}
td,th{border:1px solid #bbb;padding:2px 6px;text-align:right}
th{background:#eee} td:first-child,th:first-child{text-align:left}
table.beside td:last-child,table.beside th:last-child,table.summary td:nth-child(2),
table.summary td:last-child,table.summary th{text-align:left}
img{max-width:100%;border:1px solid #ddd;margin:.3em 0}
pre{background:#f6f6f6;padding:.4em;font-size:11px;overflow-x:auto}
pre.error{background:#fdd} section{border-top:3px solid #447;margin-top:2em}
details{font-size:11px;color:#555}
.verdicts{display:flex;flex-wrap:wrap;gap:.5em;margin:.5em 0}
.verdict{border:2px solid;border-radius:4px;padding:.3em .6em;width:17em;font-size:12px}
.verdict b.word{font-size:14px;display:block}
"""
#: a run's verdicts as the report shows them: (label, verdicts, an object with ``shown``)
Judged = Sequence[tuple[str, Sequence[Verdict], Any]]


def summary_rows(folder: Path, artifacts: Sequence[str]) -> list[dict[str, Any]]:
    """The rows the notebooks of ``artifacts`` wrote into ``folder/summary``, in order."""
    rows: list[dict[str, Any]] = []
    for artifact in artifacts:
        path = folder / "summary" / f"{artifact}.json"
        if path.exists():
            rows += json.loads(path.read_text())
    return rows


def _fmt(value: Any, spec: str = "{:.3g}") -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    return spec.format(value) if isinstance(value, int | float) else str(value)


def _pm(row: Mapping[str, Any], key: str, spec: str) -> str:
    mean, low, high = row.get(key), row.get(f"{key}_low"), row.get(f"{key}_high")
    text = _fmt(mean, spec)
    if text == "–" or not all(isinstance(v, float) and not math.isnan(v) for v in (low, high)):
        return text
    return f"{text} ± {spec.format((high - low) / 2)}"  # type: ignore[operator]


def _paper(value: Any) -> str:
    """The paper's value as printed (at most 3 decimals: a derived 6.98 / 1.19 is 5.866)."""
    return _fmt(round(value, 3) if isinstance(value, float) else value, "{:g}")


def _ours(row: Mapping[str, Any]) -> str:
    """Ours ± CI; a baseline that failed says so, and why, in place of a number."""
    text = _pm(row, "ours", "{:.3g}")
    return f"failed: {row['failed']}" if row.get("failed") and text == "–" else text


def summary_cells(row: Mapping[str, Any]) -> list[str]:
    unit = f" {row['unit']}" if row.get("unit") else ""
    return [str(row["artifact"]), f"{row['quantity']}{unit}", str(row.get("kind", "")),
            _paper(row.get("paper")), _ours(row), _pm(row, "ratio", "{:.2f}"),
            str(row.get("note", ""))]


def _line(found: Sequence[Verdict], who: Any) -> str:
    """A run's headline (:func:`~harness.reporting.headline.sentence`)."""
    return headline.sentence(found, who.device, who.paper_scenario, who.scenario, who.shown)


def verdicts_markdown(judged: Judged) -> str:
    """The verdicts under one heading per run, each opened by its headline ("" without
    any)."""
    parts = [f"### {label}\n\n{verdict.markdown(list(found), who.shown, _line(found, who))}\n"
             f"{verdict.each_band_markdown(list(found), who.shown)}"
             for label, found, who in judged]
    return ("## Verdict: ADMS over TFLite and Band (docs/verdict.md)\n\n"
            + "\n".join(parts) + "\n") if parts else ""


def verdicts_html(judged: Judged) -> str:
    """One box per verdict, grouped by run ("" without any)."""
    parts = []
    for label, found, who in judged:
        boxes = "".join(_box(v, who.shown) for v in found)
        line = f"<p><b>{html.escape(_line(found, who))}</b></p>"
        parts.append(f"<h3>{html.escape(label)}</h3>{line}<div class='verdicts'>{boxes}</div>"
                     + _each_band(list(found), who.shown))
    return ("<h2>Verdict: ADMS over TFLite and Band</h2>" + "".join(parts)) if parts else ""


def _each_band(found: list[Verdict], shown: Any) -> str:
    """The verdict against each Band row a box stands for, as a table ("" without)."""
    rows = verdict.each_band(found, shown)
    if not rows:
        return ""
    head = "".join(f"<th>{html.escape(h)}</th>" for h in verdict.EACH_BAND_HEADERS)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in r) + "</tr>"
                   for r in rows)
    return (f"<p><i>{html.escape(verdict.EACH_BAND)}</i></p>"
            f"<table class='summary'><tr>{head}</tr>{body}</table>")


def _box(v: Verdict, shown: Any) -> str:
    colour = verdict.COLOURS[v.word]
    lines = "<br>".join(html.escape(line) for line in v.lines())
    return (f"<div class='verdict' style='border-color:{colour}'>"
            f"{html.escape(shown(v.adms))} / {html.escape(shown(v.other))}"
            f"<b class='word' style='color:{colour}'>{html.escape(v.word.value.upper())}</b>"
            f"{lines}</div>")


def summary_markdown(rows: Sequence[Mapping[str, Any]], facts: Mapping[str, Any],
                     judged: Judged = ()) -> str:
    head = (f"# ADMS paper, regenerated: device {facts.get('device')}, mode "
            f"{facts.get('mode')}\n\n{built_line(facts)}\n\n{verdicts_markdown(judged)}\n")
    lines = ["| " + " | ".join(SUMMARY_COLUMNS) + " |",
             "|" + "|".join("---" for _ in SUMMARY_COLUMNS) + "|"]
    lines += ["| " + " | ".join(c.replace("|", "/") for c in summary_cells(r)) + " |"
              for r in rows]
    return head + "\n".join(lines) + "\n"


def built_line(facts: Mapping[str, Any]) -> str:
    """``built in 1177.6 s; runs: 13 ran, 0 reused, 0 failed`` (``facts["runs"]``: how many
    runs ended how), then which reading of the paper's rule ``adms`` is, where known."""
    runs = facts.get("runs")
    said = (", ".join(f"{n} {how}" for how, n in runs.items()) if isinstance(runs, Mapping)
            else str(runs))
    reading = facts.get("adms_reading")
    return f"built in {facts.get('seconds')} s; runs: {said}" + (f". {reading}" if reading
                                                                 else "")


def _summary_html(rows: Sequence[Mapping[str, Any]]) -> str:
    head = "".join(f"<th>{html.escape(c)}</th>" for c in SUMMARY_COLUMNS)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in summary_cells(r))
                   + "</tr>" for r in rows)
    return f"<table class='summary'><tr>{head}</tr>{body}</table>"


def _text(value: Any) -> str:
    return "".join(value) if isinstance(value, list) else str(value)


def output_html(output: Mapping[str, Any]) -> str:
    """One cell output: a figure, a table, Markdown, text or an error."""
    kind = output.get("output_type")
    if kind == "stream":
        return f"<pre>{html.escape(_text(output.get('text', '')))}</pre>"
    if kind == "error":
        return (f"<pre class='error'>{html.escape(str(output.get('ename')))}: "
                f"{html.escape(str(output.get('evalue')))}</pre>")
    data = output.get("data", {})
    if "image/png" in data:
        return f"<img src='data:image/png;base64,{_text(data['image/png']).strip()}'>"
    if "text/html" in data:
        return _text(data["text/html"])
    if "text/markdown" in data:
        return _MD.render(_text(data["text/markdown"]))
    if "text/plain" in data:
        return f"<pre>{html.escape(_text(data['text/plain']))}</pre>"
    return ""


def cell_html(cell: Mapping[str, Any]) -> str:
    if cell.get("cell_type") == "markdown":
        return _MD.render(_text(cell.get("source", "")))
    if cell.get("cell_type") != "code":
        return ""
    code = (f"<details><summary>code</summary><pre>{html.escape(_text(cell['source']))}"
            f"</pre></details>")
    return code + "".join(output_html(o) for o in cell.get("outputs", []))


def notebook_html(artifact: str, notebook: Mapping[str, Any], error: str) -> str:
    failed = f"<pre class='error'>notebook failed: {html.escape(error)}</pre>" if error else ""
    cells = "".join(cell_html(c) for c in notebook.get("cells", []))
    return f"<section id='{html.escape(artifact)}'>{failed}{cells}</section>"


def page(sections: Sequence[str], rows: Sequence[Mapping[str, Any]],
         facts: Mapping[str, Any], judged: Judged = ()) -> str:
    title = f"ADMS paper, regenerated: device {facts.get('device')}, mode {facts.get('mode')}"
    return (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{html.escape(title)}"
            f"</title><style>{STYLE}</style></head><body><h1>{html.escape(title)}</h1>"
            f"<p>{html.escape(built_line(facts))}</p>{verdicts_html(judged)}"
            f"<h2>Summary: the paper beside ours</h2>{_summary_html(rows)}"
            f"{''.join(sections)}</body></html>")


def write_report(folder: Path, executed: Sequence[tuple[str, Any]],
                 facts: Mapping[str, Any], judged: Judged = ()) -> tuple[Path, Path]:
    """``paper.html`` and ``paper.md`` in ``folder``, opened by ``judged``; ``executed``:
    (artifact, an object with ``notebook`` and ``error``)."""
    folder.mkdir(parents=True, exist_ok=True)
    rows = summary_rows(folder, [a for a, _ in executed])
    sections = [notebook_html(a, e.notebook, e.error) for a, e in executed]
    html_path, md_path = folder / "paper.html", folder / "paper.md"
    html_path.write_text(page(sections, rows, facts, judged))
    md_path.write_text(summary_markdown(rows, facts, judged))
    return html_path, md_path
