"""Markdown pieces: numbers as the report prints them, tables, lists of commands."""


def fmt(v, digits=1):
    """A number with thousands separators and `digits` decimals; None as "–", a string as it is."""
    if v is None:
        return "–"
    if isinstance(v, str):
        return v
    if digits == 0:
        return "{:,.0f}".format(v)
    return "{:,.{d}f}".format(v, d=digits)


def yes(flag):
    return "yes" if flag else "**no**"


def row(cells):
    return "|" + "|".join(" %s " % c if str(c) else " " for c in cells) + "|"


def table(columns, rows, align=None):
    """Lines of a Markdown table; align: the separator cells (default "---" for every column)."""
    return [row(columns), "|" + "|".join(align or ["---"] * len(columns)) + "|"] + [row(r) for r in rows]


def merged_commands(commands, merge_all=False):
    """Commands with repetitions folded into one line and its count: a run of identical ones (merge_all:
    every repetition of a command, in the order of first appearance)."""
    if merge_all:
        counts = {}
        for c in commands:
            counts[c] = counts.get(c, 0) + 1
        return [c + ("    # x%d" % n if n > 1 else "") for c, n in counts.items()]
    lines, previous, count = [], None, 0
    for c in list(commands) + [None]:
        if c == previous:
            count += 1
            continue
        if previous is not None:
            lines.append(previous + ("    # x%d" % count if count > 1 else ""))
        previous, count = c, 1
    return lines


def code_block(lines):
    return ["```"] + list(lines) + ["```"]
