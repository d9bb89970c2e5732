"""A script's section: Markdown for people (stdout, --md FILE) and a record for BENCHMARKS.json.

A separate benchmark script (int4, beam search, files, ...) builds its section with `Section`; its Markdown
carries two kinds of HTML comments, invisible when rendered: `<!-- run {...} -->` (the run: script,
command, date, commit) and `<!-- detail: WHAT -->` before a block that belongs in BENCHMARKS.json only (a
long per-configuration table, the list of commands). `parse` turns that Markdown back into the record
(`run_benchmarks.py --report-only --attach-section FILE`), and `render` writes the record's short form,
the blocks without the mark, for BENCHMARKS.md.

Record: dict(name, title, run={...}, blocks=[dict(kind=heading|text|table|code, detail=WHAT or None,
text=... | columns=[...], rows=[[...]] | lines=[...])]). Table cells are kept as the script printed them.
"""
import json
import os
import re
import sys

from .markdown import code_block, table
from .paths import relative_paths

RUN_MARK = re.compile(r"^<!-- run (\{.*\}) -->$")
DETAIL_MARK = re.compile(r"^<!-- detail(?:: (.*?))? -->$")


class Section:
    def __init__(self, name, title, run):
        self.record = dict(name=name, title=title, run=dict(run, name=name), blocks=[])

    def _add(self, block, detail):
        block["detail"] = detail or None
        self.record["blocks"].append(block)
        return self

    def heading(self, text, detail=None):
        return self._add(dict(kind="heading", text=text), detail)

    def text(self, text, detail=None):
        return self._add(dict(kind="text", text=text), detail)

    def table(self, columns, rows, detail=None, align=None):
        """align: the separator row's cells (e.g. "---:" for a right-aligned column), when not all "---"."""
        block = dict(kind="table", columns=list(columns), rows=[[str(c) for c in r] for r in rows])
        if align:
            block["align"] = list(align)
        return self._add(block, detail)

    def code(self, lines, detail="commands"):
        return self._add(dict(kind="code", lines=list(lines)), detail)

    def markdown(self):
        return markdown(self.record)


def _block_lines(block):
    if block["kind"] == "heading":
        return ["### " + block["text"]]
    if block["kind"] == "table":
        return table(block["columns"], block["rows"], block.get("align"))
    if block["kind"] == "code":
        return code_block(block["lines"])
    return [block["text"]]


def markdown(record):
    """The whole section, every block, with its marks."""
    lines = ["## " + record["title"], "<!-- run %s -->" % json.dumps(record["run"], sort_keys=True), ""]
    for block in record["blocks"]:
        if block["detail"]:
            lines.append("<!-- detail: %s -->" % block["detail"])
        lines += _block_lines(block) + [""]
    return "\n".join(lines)


def render(record):
    """The short form for BENCHMARKS.md: the blocks without a detail mark, then one line naming the rest."""
    lines = ["## " + record["title"], ""]
    for block in record["blocks"]:
        if not block["detail"]:
            lines += _block_lines(block) + [""]
    rest = list(dict.fromkeys(b["detail"] for b in record["blocks"] if b["detail"]))
    if rest:
        lines += ["In BENCHMARKS.json only (separate_runs, \"%s\"): %s." % (record["name"], "; ".join(rest)), ""]
    return lines


def _cells(line):
    return [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", line.strip()[1:-1])]


def _next_block(lines, i):
    """(block, next index) of the block starting at lines[i] (a non-empty line)."""
    line = lines[i]
    if line.startswith("### "):
        return dict(kind="heading", text=line[4:].strip()), i + 1
    if line.startswith("```"):
        j = i + 1
        while j < len(lines) and not lines[j].startswith("```"):
            j += 1
        return dict(kind="code", lines=lines[i + 1:j]), j + 1
    j = i
    kind = "table" if line.startswith("|") else "text"
    while j < len(lines) and lines[j].strip() and lines[j].startswith("|") == (kind == "table") \
            and not lines[j].startswith(("```", "### ", "<!-- ")):
        j += 1
    if kind == "table":
        rows = [_cells(x) for x in lines[i:j]]
        block = dict(kind="table", columns=rows[0], rows=rows[2:])
        if any(c != "---" for c in rows[1]):
            block["align"] = rows[1]
        return block, j
    return dict(kind="text", text="\n".join(lines[i:j])), j


def parse(text, name):
    """The record of a section's Markdown (`name`: used when the Markdown names no run)."""
    lines = text.strip("\n").split("\n")
    record = dict(name=name, title="", run={}, blocks=[])
    detail, i = None, 0
    while i < len(lines):
        line = lines[i].rstrip()
        run, mark = RUN_MARK.match(line), DETAIL_MARK.match(line)
        if not line.strip():
            i += 1
        elif line.startswith("## ") and not record["title"]:
            record["title"], i = line[3:].strip(), i + 1
        elif run:
            record["run"], i = json.loads(run.group(1)), i + 1
            record["name"] = record["run"].get("name", name)
        elif mark:
            detail, i = mark.group(1) or "details", i + 1
        else:
            block, i = _next_block([x.rstrip() for x in lines], i)
            block["detail"], detail = detail, None
            record["blocks"].append(block)
    return record


def publish(section, data, json_path, md_path=None):
    """What a separate script leaves: its section's Markdown on stdout (and in md_path), and its figures
    with the section's record in json_path (paths relative to the repository in both)."""
    text = relative_paths(section.markdown())
    sys.stdout.write(text)
    if md_path:
        with open(md_path, "w") as f:
            f.write(text)
    os.makedirs(os.path.dirname(os.path.abspath(json_path)), exist_ok=True)
    with open(json_path, "w") as f:
        f.write(relative_paths(json.dumps(dict(data, section=section.record), indent=1)) + "\n")
