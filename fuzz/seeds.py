#!/usr/bin/env python3
"""Writes the fuzz targets' seed corpora into fuzz/seeds/<target>/ from the repository's
tests: the scenario sessions (tests/scenarios/*.json) as message lines for `handle`, the
memory files of the fixtures and scenarios for `replay`, and the scenarios' search queries
for `search`. fuzz/run calls it before every run, so the seeds follow the tests."""

import hashlib
import json
import shutil
import struct
from pathlib import Path

FUZZ = Path(__file__).resolve().parent
ROOT = FUZZ.parent
SEEDS = FUZZ / "seeds"


def write(target, data):
    d = SEEDS / target
    d.mkdir(parents=True, exist_ok=True)
    (d / hashlib.sha1(data).hexdigest()).write_bytes(data)


def utf8(s):
    # Scenarios carry lone surrogates through JSON escapes; keep them as the runner does.
    return s.encode("utf-8", "surrogatepass")


def main():
    shutil.rmtree(SEEDS, ignore_errors=True)
    scenarios = sorted((ROOT / "tests" / "scenarios").glob("*.json"))
    queries = set()
    for path in scenarios:
        scenario = json.loads(path.read_text())
        lines = []
        for step in scenario["steps"]:
            if "send" in step:
                lines.append(json.dumps(step["send"], ensure_ascii=False, separators=(",", ":")))
                params = step["send"].get("params") or {}
                args = params.get("arguments") if isinstance(params, dict) else None
                if isinstance(args, dict) and isinstance(args.get("query"), str):
                    queries.add(args["query"])
            elif "send_raw" in step:
                lines.append(step["send_raw"])
        # handle reads inputs starting with "{" as lines.
        session = "\n".join(['{"jsonrpc":"2.0","id":0,"method":"ping"}'] + lines)
        write("handle", utf8(session))
        file = scenario.get("file")
        if file and "jsonl" in file:
            write("replay", utf8(file["jsonl"]))
    for path in sorted((ROOT / "core" / "tests" / "fixtures").glob("*.mcpmem")):
        data = path.read_bytes()
        write("replay", data)
        write("replay", data[:-3])  # a torn tail
    write("replay", b"")
    write(
        "replay",
        b'{"type":"entity","name":"Alice","entityType":"person","observations":["likes tea"]}\n'
        b'{"type":"relation","from":"Alice","to":"Bob","relationType":"knows"}',
    )
    # handle's generator mode (inputs not starting with "{"): a few byte patterns.
    for n in range(8):
        write("handle", bytes((n * 37 + i * 11) % 256 for i in range(64 + 32 * n)))
    # search: [mode, paging, query...]; mode 1 sends UTF-8, mode 0 UTF-16 escapes.
    queries |= {"", "a", "alice", "ALICE", "σ", "ς", "ΣΑΣ", "i̇", "İ", "ß", "ss", "k", "\u212a",
                "cafe\u0301", "café", "😀", "tea chess", "name:alice", "\"plays chess\"",
                "-bob", "a OR b", "NOT", "type:person", "\u0000"}
    for q in sorted(queries):
        write("search", bytes([1, 0x35]) + utf8(q))
        units = q.encode("utf-16-le", "surrogatepass")
        write("search", bytes([0, 0x12]) + units)
    write("search", bytes([0, 3]) + struct.pack("<HH", 0xD800, 0x61))  # a lone surrogate


if __name__ == "__main__":
    main()
