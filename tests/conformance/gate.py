#!/usr/bin/env python3
"""Differential conformance gate: runs conformance.py (beside this file: the reference server
vs. a candidate) and fails on any lenient difference that docs/compatibility.md does not explain.

What counts as explained, and nothing else:
  - categories skipped by name (SKIP below), each a section of docs/compatibility.md
    (long-strings: mcp-memory's request limits refuse 3-100 KB names);
  - tools/list: mcp-memory lists more tools, and more optional arguments for three of the
    nine (docs/compatibility.md, "More tools");
  - checks of the memory file's bytes ("memory file contents", "extra files in data dir"):
    mcp-memory keeps its memory in its own log format, not JSONL;
  - the fixture "external edits between calls", which appends JSONL text to the file;
  - in a random session, every difference from the first create_entities/create_relations
    call that repeats a name (or a relation) inside its own batch: the reference creates the
    duplicate, mcp-memory does not, and the sessions' graphs differ from then on. The harness
    flags such batches as `intra-batch-dups` only when it inserts them on purpose; its random
    picks also repeat names by chance, so the gate records those batches as they are generated.

Usage: gate.py [--conformance PATH] --ref CMD --cand CMD [harness options...]
(--conformance defaults to conformance.py beside this file.)
Prints the harness's report, then the explained and unexplained failure counts.
"""

import argparse
import importlib.util
import json
import os
import re
import sys
import tempfile

SKIP = ["storage", "swap", "format", "intra-batch-dups", "fixtures-quirk", "long-strings"]
FILE_CHECKS = {"memory file contents", "extra files in data dir"}
EXPLAINED_FIXTURES = {"external edits between calls"}


def load_harness(path):
    spec = importlib.util.spec_from_file_location("conformance", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules["conformance"] = mod
    spec.loader.exec_module(mod)
    return mod


def watch_duplicate_batches(conf):
    """Records, per seed, the first step at which the reference created a duplicate: its
    create_entities result repeats a name, or its create_relations result a relation."""
    first_dup, calls = {}, {}
    orig = conf.Harness.compare_call

    def compare_call(self, category, where, ref, cand, tool, args, ascii_only=True):
        rr, cr = orig(self, category, where, ref, cand, tool, args, ascii_only)
        key = {"create_entities": "entities", "create_relations": "relations"}.get(tool)
        m = WHERE_RE.match(where)
        if m and m.group(2) is not None:
            seed, step = int(m.group(1)), int(m.group(2))
            if seed not in first_dup or step < first_dup[seed]:
                calls[seed] = calls.get(seed, 0) + 1
        if key and m and m.group(2) is not None and isinstance(rr, dict):
            created = ((rr.get("result") or {}).get("structuredContent") or {}).get(key) or []
            ids = [e.get("name") if key == "entities" else (e.get("from"), e.get("to"), e.get("relationType"))
                   for e in created if isinstance(e, dict)]
            if len(ids) != len(set(ids)):
                first_dup.setdefault(int(m.group(1)), int(m.group(2)))
        return rr, cr

    conf.Harness.compare_call = compare_call
    return first_dup, calls


WHERE_RE = re.compile(r"^seed (\d+)(?: step (\d+))?")


def explanation(failure, first_dup):
    """Why a lenient failure is a documented difference, or None."""
    if failure["what"] in FILE_CHECKS:
        return "file format"
    if failure["what"] == "tools/list result":
        return "extended tool catalog"
    where = failure["where"]
    fixture = re.match(r"^fixture '(.*)'", where)
    if fixture and fixture.group(1) in EXPLAINED_FIXTURES:
        return "external edits"
    m = WHERE_RE.match(where)
    if m:
        seed = int(m.group(1))
        step = int(m.group(2)) if m.group(2) is not None else float("inf")
        if seed in first_dup and step >= first_dup[seed]:
            return "duplicates inside one batch"
    return None


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--conformance", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "conformance.py"),
                   help="the harness (default: conformance.py beside this file)")
    args, rest = p.parse_known_args()
    conf = load_harness(args.conformance)
    first_dup, calls = watch_duplicate_batches(conf)
    with tempfile.TemporaryDirectory() as tmp:
        report_path = os.path.join(tmp, "report.json")
        rc = conf.main(rest + ["--skip", ",".join(SKIP), "--json-report", report_path])
        if not os.path.exists(report_path):
            print("conformance harness did not run (exit %s)" % rc, file=sys.stderr)
            return 2
        with open(report_path) as fh:
            report = json.load(fh)
    explained, unexplained = {}, []
    for f in report["failures"]:
        if not f["lenient_fail"]:
            continue
        why = explanation(f, first_dup)
        if why:
            explained[why] = explained.get(why, 0) + 1
        else:
            unexplained.append(f)
    print("\n== conformance gate")
    print("skipped categories (docs/compatibility.md): %s" % ", ".join(SKIP))
    print("sessions with a duplicate inside one batch (seed: first step): %s" % (first_dup or "none"))
    print("random-phase tool calls compared on identical graphs (before any such duplicate): %d"
          % sum(calls.values()))
    for why, n in sorted(explained.items()):
        print("explained lenient failures, %s: %d" % (why, n))
    print("unexplained lenient failures: %d" % len(unexplained))
    for f in unexplained[:20]:
        print("- [%s] %s: %s" % (f["category"], f["where"], f["what"][:200]))
        print("    at %s\n    ref : %s\n    cand: %s" % (f["diff_path"], str(f["ref"])[:300], str(f["cand"])[:300]))
    return 1 if unexplained else 0


if __name__ == "__main__":
    sys.exit(main())
