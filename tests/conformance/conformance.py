#!/usr/bin/env python3
r"""Differential conformance harness for knowledge-graph memory MCP servers.

Runs the same seeded sequence of MCP requests against a reference server
(normally the official JS `@modelcontextprotocol/server-memory`) and a
candidate server, both over stdio (newline-delimited JSON-RPC), each with its
own fresh memory file, and compares what comes back.

Python 3.11, standard library only.  This repository runs it through
tests/conformance/gate.py (tests/run), which fails only on differences that
docs/compatibility.md does not explain.

Typical use
-----------
  npm ci --prefix tests/conformance    # the pinned reference (package.json)
  REF="node tests/conformance/node_modules/@modelcontextprotocol/server-memory/dist/index.js"
  # self-check: reference against itself, must be 100% (strict too)
  python3 tests/conformance/conformance.py --ref "$REF" --ref-only --seeds 1-5
  # candidate that takes the file as an argument instead of MEMORY_FILE_PATH
  python3 tests/conformance/conformance.py --ref "$REF" --cand target/release/mcp-memory \
      --cand-env-template "" --cand-args-template "-f {file}" --seeds 1-20
  # a WASI build: placeholders also work inside the command itself
  python3 conformance.py --ref "$REF" --cand-env-template "" \
      --cand "wasmtime run --dir {dir} --env MEMORY_FILE_PATH={file} kg.wasm"

Launch templates: `{file}` is replaced by the absolute path of that server's
private memory file (it lives in a fresh temp dir; it may not exist yet),
`{dir}` by that directory, in the command, the args template and the env
template.  The server's working directory is {dir}.  Env templates are space-separated KEY=VALUE
words (shell quoting allowed); the default for both servers is
`MEMORY_FILE_PATH={file}`.  Any inherited MEMORY_FILE_PATH is removed.

What it checks
--------------
The observable behaviour of the reference server, npm
@modelcontextprotocol/server-memory 2026.8.31 with @modelcontextprotocol/sdk
1.32.2 and zod 4.6.7 (the versions tests/conformance/package.json pins),
written down by running that package over stdio and reading its dist/index.js:
  - the protocol surface: version negotiation (5 versions echoed, any other
    string answered 2025-11-25, malformed initialize params -32603 with the
    zod issues), tools/list, ping, calls before initialize, unknown methods
    (-32601) and tools (an isError result), garbage and batch lines (no reply);
  - the nine tools: result envelopes (structuredContent and the
    JSON.stringify(x, null, 2) text), isError results for schema violations,
    and their semantics (exact, case-sensitive name matching; no dedupe
    inside a batch; delete_entities cascades on the requested names;
    open_nodes relations between found names only; search_nodes with JS
    toLowerCase and no normalization, the empty query matching everything);
  - the memory.jsonl file: what is written after every mutation (byte-exact
    serialization), tolerant reading of existing files (CRLF, blank lines,
    unknown types, extra keys), failing calls on corrupt files, which are
    never overwritten, and survival across restarts;
  - the resource memory://knowledge-graph: list, read, subscribe and the
    notifications/resources/updated sent before a mutating call's reply.
The harness was checked against the reference itself (seeds 1-10 x 200
steps: 0 failures, lenient and strict) and against 14 hand-made mutants of
the reference, all detected (seeds 1-3).

What is compared
----------------
Every check has a *lenient* verdict and a *strict* verdict.
  lenient: same outcome kind (ok / tool error (isError) / JSON-RPC error
           code / no response); for ok results the structuredContent and the
           JSON parsed from content[0].text must be equal, where lists of
           entities and relations are compared as multisets (order is not
           treated as contract) but observation lists keep their order.
           Error texts are ignored.  Files are compared as parsed graphs.
  strict:  the whole `result` (or `error`) object must be equal, list order
           included, and text content byte-for-byte (so JSON.stringify(x,
           null, 2) formatting, key order and error messages must match);
           files byte-for-byte; leftover files in the data dir; per-step
           resource-update notifications.
The pass criterion is lenient unless --strict is given; the other verdict is
printed as information.  --ref-only must give 0 failures in both.

Phases
------
  protocol  initialize (several protocol versions), tools/list, ping,
            unknown method/tool, malformed params, resources, garbage line.
  random    per seed: a seeded random session of tool calls over all 9 tools
            (adversarial strings, duplicates, missing entities, unicode case
            traps, invalid arguments, extra fields, restarts), then restart
            and compare read_graph and the files on disk, then the
            "swap" check (each server reads the *other's* file), then a
            format check of each file against the reference serializer spec.
  fixtures  pre-existing memory files (tolerant parsing, CRLF, unknown line
            types, corrupt lines, BOM, wrong field types, missing dir ...).
Use --skip CATEGORY,... to leave out categories (see --list-categories).
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import queue
import random
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
import time

DEFAULT_PROTOCOL = "2025-06-18"
MEMORY_BASENAME = "memory.jsonl"

TOOLS = [
    "create_entities", "create_relations", "add_observations",
    "delete_entities", "delete_observations", "delete_relations",
    "read_graph", "search_nodes", "open_nodes",
]
# tools whose content[0].text is JSON, and the structuredContent key that
# holds the same value (None: structuredContent *is* the value)
JSON_TEXT_TOOLS = {
    "create_entities": "entities",
    "create_relations": "relations",
    "add_observations": "results",
    "read_graph": None,
    "search_nodes": None,
    "open_nodes": None,
}
GRAPH_TOOLS = {"read_graph", "search_nodes", "open_nodes"}

CATEGORIES = {
    "protocol": "initialize/tools-list/ping/unknown method and tool/malformed params",
    "protocol-quirk": "reference-SDK quirks: calls before initialize, garbage lines, batches",
    "resources": "resources/list, resources/read, subscribe + notifications",
    "tools": "the random tool-call sequence",
    "invalid-args": "schema-invalid tool arguments (random phase)",
    "extra-fields": "unknown properties inside tool arguments (random phase)",
    "intra-batch-dups": "duplicates inside one create/add batch (random phase)",
    "long-strings": "10k-100k character strings (random phase)",
    "exotic": "lone UTF-16 surrogates (off unless --exotic)",
    "restart": "restarts mid-session and at the end; read_graph after restart",
    "storage": "on-disk file comparison, leftover temp files",
    "swap": "each server reads the other's file",
    "format": "file bytes equal the reference serializer spec",
    "foreign-file": "random sessions starting from a foreign-styled valid file",
    "fixtures": "pre-existing files: tolerant parsing",
    "fixtures-quirk": "pre-existing files: corrupt / wrongly typed content",
    "concurrency": "pipelined requests (informational only, never counted)",
}


# ----------------------------------------------------------------------------
# JSON helpers
# ----------------------------------------------------------------------------

def canon(obj) -> str:
    """Canonical JSON text of a value (object key order ignored)."""
    return json.dumps(obj, sort_keys=True, ensure_ascii=True)


def js_string(s: str) -> str:
    """JSON.stringify(s) for a JS string (well-formed JSON.stringify)."""
    out = ['"']
    for ch in s:
        o = ord(ch)
        if ch == '"':
            out.append('\\"')
        elif ch == '\\':
            out.append('\\\\')
        elif ch == '\n':
            out.append('\\n')
        elif ch == '\r':
            out.append('\\r')
        elif ch == '\t':
            out.append('\\t')
        elif ch == '\b':
            out.append('\\b')
        elif ch == '\f':
            out.append('\\f')
        elif o < 0x20 or 0xD800 <= o <= 0xDFFF:
            out.append('\\u%04x' % o)
        else:
            out.append(ch)
    out.append('"')
    return ''.join(out)


def js_value(v) -> str:
    """JSON.stringify(v) (compact) for str / list / dict / int / bool / None."""
    if isinstance(v, str):
        return js_string(v)
    if isinstance(v, bool):
        return "true" if v else "false"
    if v is None:
        return "null"
    if isinstance(v, (int, float)):
        return json.dumps(v)
    if isinstance(v, list):
        return "[" + ",".join(js_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ",".join(js_string(k) + ":" + js_value(x) for k, x in v.items()) + "}"
    raise TypeError(type(v))


def reference_file_bytes(graph: dict) -> bytes:
    """What the reference writes for a graph: a compact JSON.stringify line per entity, then per
    relation, joined with \n (no trailing newline; the empty graph is 0 bytes)."""
    lines = []
    for e in graph.get("entities", []):
        lines.append(js_value({"type": "entity", "name": e["name"],
                               "entityType": e["entityType"],
                               "observations": e["observations"]}))
    for r in graph.get("relations", []):
        lines.append(js_value({"type": "relation", "from": r["from"], "to": r["to"],
                               "relationType": r["relationType"]}))
    return "\n".join(lines).encode("utf-8", "surrogatepass")


def parse_memory_file(data: bytes | None):
    """Parse a memory file like the reference's loader does.

    Returns ("ok", graph) or ("bad", reason).  None (absent file) -> empty graph.
    """
    if data is None:
        return ("ok", {"entities": [], "relations": []})
    text = data.decode("utf-8", "replace")
    g = {"entities": [], "relations": []}
    for line in text.split("\n"):
        if line.strip() == "":
            continue
        try:
            item = json.loads(line)
        except ValueError as e:
            return ("bad", "json: %s" % e)
        if item is None:
            return ("bad", "null line")
        if not isinstance(item, dict):
            continue
        if item.get("type") == "entity":
            g["entities"].append({k: item.get(k) for k in ("name", "entityType", "observations")})
        elif item.get("type") == "relation":
            g["relations"].append({k: item.get(k) for k in ("from", "to", "relationType")})
    return ("ok", g)


def canon_graph(g):
    if not isinstance(g, dict):
        return ("not-a-graph", canon(g))
    ents = g.get("entities")
    rels = g.get("relations")
    out = {k: canon(v) for k, v in g.items() if k not in ("entities", "relations")}
    out["entities"] = sorted(canon(e) for e in ents) if isinstance(ents, list) else canon(ents)
    out["relations"] = sorted(canon(r) for r in rels) if isinstance(rels, list) else canon(rels)
    return out


def canon_tool_value(tool, key, value):
    """Lenient canonical form of a tool's payload value."""
    if tool in GRAPH_TOOLS and key is None:
        return canon_graph(value)
    if tool in ("create_entities", "create_relations") and isinstance(value, list):
        return sorted(canon(x) for x in value)
    return canon(value)


def first_diff(a, b, path="$"):
    """Path and values of the first difference between two JSON-ish values."""
    if type(a) is not type(b):
        return path, a, b
    if isinstance(a, (bytes, bytearray)):
        if a == b:
            return None
        i = next((k for k, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
        lo = max(0, i - 40)
        return "%s[byte %d of %d/%d]" % (path, i, len(a), len(b)), a[lo:i + 80], b[lo:i + 80]
    if isinstance(a, dict):
        for k in sorted(set(a) | set(b), key=str):
            if k not in a:
                return "%s.%s" % (path, k), "<missing>", b[k]
            if k not in b:
                return "%s.%s" % (path, k), a[k], "<missing>"
            d = first_diff(a[k], b[k], "%s.%s" % (path, k))
            if d:
                return d
        return None
    if isinstance(a, (list, tuple)):
        for i, (x, y) in enumerate(zip(a, b)):
            d = first_diff(x, y, "%s[%d]" % (path, i))
            if d:
                return d
        if len(a) != len(b):
            return "%s.length" % path, len(a), len(b)
        return None
    if isinstance(a, str) and a != b and max(len(a), len(b)) > 120:
        i = next((k for k, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
        lo = max(0, i - 40)
        return "%s[char %d of %d/%d]" % (path, i, len(a), len(b)), a[lo:i + 80], b[lo:i + 80]
    if a != b:
        return path, a, b
    return None


def short(v, n=300):
    if isinstance(v, (bytes, bytearray)):
        s = repr(bytes(v))
    else:
        try:
            s = json.dumps(v, ensure_ascii=True)
        except (TypeError, ValueError):
            s = repr(v)
    return s if len(s) <= n else s[:n] + "...(%d chars)" % len(s)


# ----------------------------------------------------------------------------
# MCP stdio client
# ----------------------------------------------------------------------------

class ServerError(Exception):
    pass


class Server:
    """One MCP server process spoken to over stdio."""

    def __init__(self, label, cmd, args_tpl, env_tpl, file, timeout):
        self.label = label
        self.cmd = cmd
        self.args_tpl = args_tpl
        self.env_tpl = env_tpl
        self.file = file
        self.dir = os.path.dirname(file)
        self.timeout = timeout
        self.proc = None
        self.next_id = 0
        self.notifications = []
        self.stray = []          # responses to ids we were not waiting for
        self.stderr_tail = collections.deque(maxlen=60)
        self.q = None

    def _subst(self, s):
        return s.replace("{file}", self.file).replace("{dir}", self.dir)

    def argv_env(self):
        argv = [self._subst(a) for a in shlex.split(self.cmd) + shlex.split(self.args_tpl or "")]
        env = dict(os.environ)
        env.pop("MEMORY_FILE_PATH", None)
        for kv in shlex.split(self.env_tpl or ""):
            if "=" not in kv:
                raise SystemExit("bad env template word %r (want KEY=VALUE)" % kv)
            k, v = kv.split("=", 1)
            env[k] = self._subst(v)
        return argv, env

    def start(self):
        argv, env = self.argv_env()
        try:
            self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=subprocess.PIPE, env=env, cwd=self.dir)
        except OSError as e:
            raise ServerError("%s: cannot start %r: %s" % (self.label, argv, e))
        self.q = queue.Queue()
        self.next_id = 0
        self.notifications = []
        self.stray = []
        q, proc, tail = self.q, self.proc, self.stderr_tail

        def rd_out():
            for line in iter(proc.stdout.readline, b""):
                q.put(line)
            q.put(None)

        def rd_err():
            for line in iter(proc.stderr.readline, b""):
                tail.append(line.decode("utf-8", "replace").rstrip("\n"))

        threading.Thread(target=rd_out, daemon=True).start()
        threading.Thread(target=rd_err, daemon=True).start()

    def stop(self):
        if not self.proc:
            return
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=3)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None

    def send_raw(self, data: bytes):
        try:
            self.proc.stdin.write(data)
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError) as e:
            raise ServerError("%s: write failed (%s); stderr: %s" % (self.label, e, self.stderr()))

    def send(self, msg, ascii_only=True):
        self.send_raw(encode_msg(msg, ascii_only))

    def _read(self, deadline):
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise ServerError("%s: timeout; stderr: %s" % (self.label, self.stderr()))
            try:
                line = self.q.get(timeout=left)
            except queue.Empty:
                continue
            if line is None:
                self.q.put(None)
                raise ServerError("%s: process exited (rc=%s); stderr: %s"
                                  % (self.label, self.proc.poll(), self.stderr()))
            try:
                text = line.decode("utf-8")
            except UnicodeDecodeError as e:
                raise ServerError("%s: invalid UTF-8 on stdout: %s" % (self.label, e))
            if text.strip() == "":
                continue
            try:
                return json.loads(text)
            except ValueError:
                raise ServerError("%s: non-JSON line on stdout: %r" % (self.label, text[:200]))

    def request(self, method, params=None, ascii_only=True, msg_id=None):
        self.next_id += 1
        rid = self.next_id if msg_id is None else msg_id
        msg = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not None:
            msg["params"] = params
        self.send(msg, ascii_only)
        return self.wait_for(rid)

    def wait_for(self, rid, timeout=None):
        deadline = time.monotonic() + (timeout or self.timeout)
        while True:
            m = self._read(deadline)
            if isinstance(m, dict) and "method" in m and "id" in m:
                # server->client request: we offer nothing
                self.send({"jsonrpc": "2.0", "id": m["id"],
                           "error": {"code": -32601, "message": "Method not found"}})
                continue
            if isinstance(m, dict) and "method" in m:
                self.notifications.append(m)
                continue
            if isinstance(m, dict) and m.get("id") == rid:
                return m
            self.stray.append(m)

    def notify(self, method, params=None):
        msg = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            msg["params"] = params
        self.send(msg)

    def initialize(self, pv=DEFAULT_PROTOCOL):
        r = self.request("initialize", {"protocolVersion": pv, "capabilities": {},
                                        "clientInfo": {"name": "kg-conformance", "version": "1"}})
        self.notify("notifications/initialized")
        return r

    def take_notifications(self):
        n, self.notifications = self.notifications, []
        return n

    def stderr(self):
        return " | ".join(list(self.stderr_tail)[-8:])


def encode_msg(msg, ascii_only=True) -> bytes:
    if ascii_only:
        return (json.dumps(msg, ensure_ascii=True) + "\n").encode("ascii")
    try:
        return (json.dumps(msg, ensure_ascii=False) + "\n").encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates cannot be raw UTF-8
        return (json.dumps(msg, ensure_ascii=True) + "\n").encode("ascii")


# ----------------------------------------------------------------------------
# outcome normalisation
# ----------------------------------------------------------------------------

def outcome(resp, tool=None):
    """(lenient_view, strict_view) of one JSON-RPC response to a tools/call."""
    if isinstance(resp, ServerError) or resp is None:
        v = ("no_response",)
        return v, v
    if "error" in resp:
        err = resp["error"] if isinstance(resp["error"], dict) else {}
        return ("rpc_error", err.get("code")), ("rpc_error", resp["error"])
    res = resp.get("result")
    if not isinstance(res, dict):
        return ("bad_result", canon(res)), ("bad_result", res)
    if res.get("isError") is True:
        return ("tool_error",), ("tool_error", res)
    if tool is None:
        return ("ok", canon(res)), ("ok", res)
    content = res.get("content")
    sc = res.get("structuredContent")
    texts = None
    if isinstance(content, list):
        texts = [c.get("text") if isinstance(c, dict) and c.get("type") == "text" else canon(c)
                 for c in content]
    if tool in JSON_TEXT_TOOLS:
        key = JSON_TEXT_TOOLS[tool]
        parsed = "<unparseable>"
        if texts and len(texts) == 1 and isinstance(texts[0], str):
            try:
                parsed = json.loads(texts[0])
            except ValueError:
                pass
        sc_val = sc.get(key) if (key is not None and isinstance(sc, dict)) else sc
        if key is None and isinstance(sc, dict):
            sc_val = {"entities": sc.get("entities"), "relations": sc.get("relations")}
            extra = sorted(set(sc) - {"entities", "relations"})
            if extra:
                sc_val["<extra keys>"] = extra
        elif key is not None and isinstance(sc, dict) and set(sc) != {key}:
            sc_val = {"<keys>": sorted(sc), key: sc.get(key)}
        len_view = ("ok", len(texts) if texts is not None else None,
                    canon_tool_value(tool, key, sc_val), canon_tool_value(tool, key, parsed))
    else:
        len_view = ("ok", canon(texts), canon(sc))
    return len_view, ("ok", res)


def _graph_items(resp):
    sc = ((resp or {}).get("result") or {}).get("structuredContent")
    if not isinstance(sc, dict):
        return None
    ents = sc.get("entities") if isinstance(sc.get("entities"), list) else []
    rels = sc.get("relations") if isinstance(sc.get("relations"), list) else []
    key = lambda x: json.dumps(x, sort_keys=True, ensure_ascii=True)
    return collections.Counter(map(key, ents)), collections.Counter(map(key, rels))


def superset_graph(ref_resp, cand_resp):
    """True when the candidate's structured graph contains every entity and relation of the reference's."""
    if not isinstance(ref_resp, dict) or not isinstance(cand_resp, dict):
        return False
    r, c = _graph_items(ref_resp), _graph_items(cand_resp)
    if r is None or c is None:
        return False
    return not (r[0] - c[0]) and not (r[1] - c[1])


TMP_RE = re.compile(r"\.[0-9a-f]{32}\.tmp")


def scrub(view, server):
    """Strict views: hide the server's private dir and random temp-file names in texts."""
    s = json.dumps(view, ensure_ascii=True)
    for d in sorted({server.dir, os.path.realpath(server.dir)}, key=len, reverse=True):
        s = s.replace(json.dumps(d, ensure_ascii=True)[1:-1], "<DIR>")
    s = TMP_RE.sub(".<RAND>.tmp", s)
    return json.loads(s)


def resource_view(resp):
    """Lenient view of a resources/read response: the graph parsed from the text."""
    lv = outcome(resp)[0]
    if lv[0] != "ok":
        return lv
    try:
        contents = resp["result"]["contents"]
        meta = [canon({k: v for k, v in c.items() if k != "text"}) for c in contents]
        return ("ok", meta, [canon_graph(json.loads(c["text"])) for c in contents])
    except (KeyError, TypeError, ValueError) as e:
        return ("bad_resource", str(e))


# ----------------------------------------------------------------------------
# results bookkeeping
# ----------------------------------------------------------------------------

class Report:
    def __init__(self, strict, max_details, skip):
        self.strict = strict
        self.max_details = max_details
        self.skip = skip
        self.n = 0
        self.len_fail = 0
        self.strict_fail = 0
        self.by_cat = collections.defaultdict(lambda: [0, 0, 0])  # checks, lenient fails, strict fails
        self.failures = []
        self.info = []
        self.coverage = collections.Counter()   # (tool, reference outcome) in tool calls

    def check(self, category, where, what, len_ref, len_cand, str_ref, str_cand, extra=None):
        self.n += 1
        lf = len_ref != len_cand
        sf = lf or (str_ref != str_cand)
        c = self.by_cat[category]
        c[0] += 1
        if lf:
            self.len_fail += 1
            c[1] += 1
        if sf:
            self.strict_fail += 1
            c[2] += 1
        if lf or sf:
            if lf:
                d = first_diff(len_ref, len_cand)
            else:
                d = first_diff(str_ref, str_cand)
            self.failures.append({
                "category": category, "where": where, "what": what,
                "lenient_fail": lf, "strict_fail": sf,
                "diff_path": d[0] if d else None,
                "ref": d[1] if d else None, "cand": d[2] if d else None,
                "extra": extra,
            })
        return not (sf if self.strict else lf)

    def note(self, s):
        self.info.append(s)

    def summary(self, out=sys.stdout):
        crit = "strict" if self.strict else "lenient"
        main_fail = self.strict_fail if self.strict else self.len_fail
        other = "lenient" if self.strict else "strict"
        other_fail = self.len_fail if self.strict else self.strict_fail
        print("", file=out)
        print("== per category: checks / lenient failures / strict failures", file=out)
        for cat in sorted(self.by_cat):
            c = self.by_cat[cat]
            print("  %-16s %6d %6d %6d" % (cat, c[0], c[1], c[2]), file=out)
        for s in self.info:
            print("  info: " + s, file=out)
        if self.coverage:
            tools = sorted({t for t, _ in self.coverage})
            print("  coverage (reference outcomes of tools/call): " + "; ".join(
                "%s %s" % (t, ",".join("%s=%d" % (k, n) for (tt, k), n in sorted(self.coverage.items()) if tt == t))
                for t in tools), file=out)
        shown = [f for f in self.failures if (f["strict_fail"] if self.strict else f["lenient_fail"])]
        others = [f for f in self.failures if f not in shown]
        if shown:
            print("\n== first %d of %d %s differences" % (min(self.max_details, len(shown)), len(shown), crit), file=out)
            for f in shown[:self.max_details]:
                self._print_failure(f, out)
        if others:
            print("\n== first %d of %d %s-only differences (informational)"
                  % (min(self.max_details, len(others)), len(others), other), file=out)
            for f in others[:self.max_details]:
                self._print_failure(f, out)
        print("", file=out)
        print("%d passed, %d failed (%s)   [%s: %d passed, %d failed]"
              % (self.n - main_fail, main_fail, crit, other, self.n - other_fail, other_fail), file=out)

    @staticmethod
    def _print_failure(f, out):
        print("- [%s] %s: %s" % (f["category"], f["where"], f["what"]), file=out)
        print("    at %s" % f["diff_path"], file=out)
        print("    ref : %s" % short(f["ref"]), file=out)
        print("    cand: %s" % short(f["cand"]), file=out)
        if f.get("extra"):
            print("    %s" % short(f["extra"], 600), file=out)


# ----------------------------------------------------------------------------
# random input generation
# ----------------------------------------------------------------------------

BASE_NAMES = ["Alice", "Bob", "Charlie", "Acme Corp", "acme corp", "ACME CORP", "alice",
              "ALICE", "aLiCe", "Alice_Smith", "default_user", "TechCo", "project-x"]
BASE_TYPES = ["person", "Person", "PERSON", "organization", "company", "event", "place",
              "concept", "tool", "", "type with space"]
BASE_RELS = ["knows", "works_at", "works at", "KNOWS", "manages", "is_part_of", "self", ""]
BASE_OBS = ["works at Acme Corp", "likes programming", "Speaks fluent Spanish",
            "Graduated in 2019", "Prefers morning meetings", "likes coffee", "has a dog",
            "WORKS AT ACME CORP", ""]
ADVERSARIAL = [
    "", " ", "  padded  ", "\t", "Zo\u00eb", "Zoe\u0308", "\u00e9", "e\u0301", "\u6771\u4eac",
    "\U0001F600 emoji", "\U0001F469\u200d\U0001F469\u200d\U0001F467", "\u0130stanbul",
    "istanbul", "ISTANBUL", "\u0131", "\u039f\u0394\u039f\u03a3", "\u03bf\u03b4\u03bf\u03c2",
    "\u03a3", "\u03c3", "\u03c2", "stra\u00dfe", "STRASSE", "\u1e9e", "\u212a", "k",
    "\u2126", "\u01c5", "\ufb01", "\u1c89", "\u05e9\u05dc\u05d5\u05dd", "\u0645\u0631\u062d\u0628\u0627",
    "\u200b", "\u200d", 'say "hi"', "back\\slash", "it's", '{"type":"relation","from":"a"}',
    '{"type":"entity","name":"x","entityType":"y","observations":[]}', "line1\nline2",
    "cr\r\nlf", "\r", "\u2028sep\u2029", "\u0000nul", "\u0001\u001f\u007f", "\u0085nel",
    "</script>", "a/b", "123", "true", "null", "__proto__", "constructor", "toString",
    "hasOwnProperty", "valueOf", "[object Object]", "\ufeffbom", "\U0010ffff",
    "\ufffd", "%s%n", "' OR 1=1 --",
]
SPECIAL_QUERIES = ["\u03a3", "\u03c3", "\u03c2", "\u0130", "i\u0307", "I", "i", "\u00df", "SS",
                   "ss", "\u1e9e", "k", "\u212a", "K", "\u03c9", "\u2126", "\u00c9", "E\u0301",
                   "\u0131", "\ufb01", "FI", "\u01c4", "\u01c6"]
EXOTIC = ["\ud800", "a\udfffb", "\udbff\udbff", "x\ud83d"]
SYLL = ["ka", "lo", "mi", "ra", "zen", "tu", "bo", "qi", "xa", "ul", "ne", "so"]


class Gen:
    def __init__(self, rng: random.Random, skip: set, exotic: bool):
        self.rng = rng
        self.skip = skip
        self.exotic = exotic and "exotic" not in skip
        self.names = []      # names we have tried to create
        self.types = []
        self.obs = []
        self.rels = []       # relations we have tried to create
        self.live = []       # entity names the reference reports as existing
        self.pending_flags = set()

    def observe(self, tool, args, resp):
        """Learn which names exist from the reference's answers (steers later ops)."""
        if not isinstance(resp, dict):
            return
        res = resp.get("result") or {}
        if res.get("isError"):
            return
        sc = res.get("structuredContent") or {}
        if tool == "create_entities":
            self.live.extend(e.get("name") for e in sc.get("entities") or [] if isinstance(e, dict))
        elif tool == "delete_entities":
            gone = set(x for x in args.get("entityNames") or [] if isinstance(x, str))
            self.live = [n for n in self.live if n not in gone]
        elif tool == "read_graph":
            self.live = [e.get("name") for e in sc.get("entities") or [] if isinstance(e, dict)]

    def live_name(self, p_live):
        if self.live and self.rng.random() < p_live:
            return self.rng.choice(self.live)
        return self.name(0.6)

    def fresh(self):
        r = self.rng
        return "".join(r.choice(SYLL) for _ in range(r.randint(1, 4))) + (str(r.randint(0, 99)) if r.random() < 0.3 else "")

    def long_str(self):
        r = self.rng
        self.pending_flags.add("long-strings")
        k = r.random()
        if k < 0.4:
            return "x" * r.choice([10000, 20000])
        if k < 0.7:
            alphabet = "abc \u00e9\u6771\U0001F600\n\"\\\u0000"
            return "".join(r.choice(alphabet) for _ in range(r.randint(3000, 8000)))
        return ("ab" * 50000)[: r.randint(60000, 100000)]

    def vary_case(self, s):
        r = self.rng
        k = r.random()
        if k < 0.25:
            return s.upper()
        if k < 0.5:
            return s.lower()
        if k < 0.65:
            return s.swapcase()
        if k < 0.8:
            return "".join(c.upper() if r.random() < 0.5 else c.lower() for c in s)
        return s

    def adversarial(self):
        r = self.rng
        if self.exotic and r.random() < 0.1:
            self.pending_flags.add("exotic")
            return r.choice(EXOTIC)
        if "long-strings" not in self.skip and r.random() < 0.03:
            return self.long_str()
        return r.choice(ADVERSARIAL)

    def pick(self, pool, base, p_pool=0.5):
        r = self.rng
        k = r.random()
        if pool and k < p_pool:
            return r.choice(pool)
        k = r.random()
        if k < 0.35:
            return r.choice(base)
        if k < 0.7:
            return self.adversarial()
        if k < 0.85:
            return self.fresh()
        if pool:
            return self.vary_case(r.choice(pool))
        return self.fresh()

    def name(self, p_pool=0.6):
        return self.pick(self.names, BASE_NAMES, p_pool)

    def etype(self):
        return self.pick(self.types, BASE_TYPES, 0.4)

    def obs_str(self, p_pool=0.3):
        return self.pick(self.obs, BASE_OBS, p_pool)

    def rel_type(self):
        return self.pick([x["relationType"] for x in self.rels], BASE_RELS, 0.4)

    def maybe_extra(self, d):
        if "extra-fields" in self.skip or self.rng.random() >= 0.05:
            return d
        self.pending_flags.add("extra-fields")
        d = dict(d)
        d[self.rng.choice(["extra", "type", "id", "__proto__x", "Name"])] = self.rng.choice([1, "x", None, [1], {"a": 1}])
        return d

    def dup_batch(self, items):
        if "intra-batch-dups" in self.skip or not items or self.rng.random() >= 0.12:
            return items
        self.pending_flags.add("intra-batch-dups")
        items = list(items)
        items.insert(self.rng.randrange(len(items) + 1), self.rng.choice(items))
        return items

    # --- operations -----------------------------------------------------
    def op(self):
        """Returns (kind, payload).  kind is 'call', 'resource', 'restart'."""
        r = self.rng
        self.pending_flags = set()
        ops = [("create_entities", 20), ("create_relations", 14), ("add_observations", 14),
               ("delete_entities", 6), ("delete_observations", 8), ("delete_relations", 6),
               ("read_graph", 7), ("search_nodes", 14), ("open_nodes", 8)]
        if "invalid-args" not in self.skip:
            ops.append(("<invalid>", 2))
        if "resources" not in self.skip:
            ops.append(("<resource>", 1))
        if "restart" not in self.skip:
            ops.append(("<restart>", 1))
        total = sum(w for _, w in ops)
        x = r.uniform(0, total)
        for name, w in ops:
            x -= w
            if x <= 0:
                break
        if name == "<restart>":
            return "restart", None
        if name == "<resource>":
            return "resource", {"uri": "memory://knowledge-graph"}
        if name == "<invalid>":
            self.pending_flags.add("invalid-args")
            return "call", self.invalid()
        return "call", (name, getattr(self, "a_" + name)())

    def a_create_entities(self):
        r = self.rng
        ents = []
        for _ in range(r.choice([0, 1, 1, 2, 2, 3, 4])):
            n = self.name(p_pool=0.25)
            t = self.etype()
            obs = [self.obs_str() for _ in range(r.choice([0, 0, 1, 1, 2, 3]))]
            if obs and "intra-batch-dups" not in self.skip and r.random() < 0.1:
                obs.append(r.choice(obs))
                self.pending_flags.add("intra-batch-dups")
            self.names.append(n)
            self.types.append(t)
            self.obs.extend(obs)
            ents.append(self.maybe_extra({"name": n, "entityType": t, "observations": obs}))
        return {"entities": self.dup_batch(ents)}

    def a_create_relations(self):
        r = self.rng
        rels = []
        for _ in range(r.choice([0, 1, 1, 2, 3])):
            f = self.live_name(0.6)
            t = f if r.random() < 0.1 else self.live_name(0.6)
            rel = {"from": f, "to": t, "relationType": self.rel_type()}
            self.rels.append(rel)
            rels.append(self.maybe_extra(rel))
        return {"relations": self.dup_batch(rels)}

    def a_add_observations(self):
        r = self.rng
        items = []
        for _ in range(r.choice([0, 1, 1, 1, 2, 3])):
            n = self.live_name(0.9) if r.random() > 0.05 else self.fresh()
            contents = [self.obs_str(0.4) for _ in range(r.choice([0, 1, 1, 2, 3]))]
            if contents and "intra-batch-dups" not in self.skip and r.random() < 0.1:
                contents.append(r.choice(contents))
                self.pending_flags.add("intra-batch-dups")
            self.obs.extend(contents)
            items.append(self.maybe_extra({"entityName": n, "contents": contents}))
        return {"observations": self.dup_batch(items)}

    def a_delete_entities(self):
        r = self.rng
        return {"entityNames": [self.name(0.7) for _ in range(r.choice([0, 1, 1, 2]))]}

    def a_delete_observations(self):
        r = self.rng
        ds = []
        for _ in range(r.choice([0, 1, 1, 2])):
            ds.append(self.maybe_extra({"entityName": self.live_name(0.7),
                                        "observations": [self.obs_str(0.7) for _ in range(r.choice([0, 1, 1, 2]))]}))
        return {"deletions": ds}

    def a_delete_relations(self):
        r = self.rng
        rels = []
        for _ in range(r.choice([0, 1, 1, 2])):
            if self.rels and r.random() < 0.7:
                rel = dict(r.choice(self.rels))
                if r.random() < 0.15:
                    rel["relationType"] = self.vary_case(rel["relationType"])
            else:
                rel = {"from": self.name(), "to": self.name(), "relationType": self.rel_type()}
            rels.append(self.maybe_extra(rel))
        return {"relations": rels}

    def a_read_graph(self):
        return {} if self.rng.random() < 0.9 else {"unused": 1}

    def a_search_nodes(self):
        r = self.rng
        k = r.random()
        pool = self.names + self.types + self.obs
        if pool and k < 0.35:
            s = r.choice(pool)
            if len(s) > 2:
                i = r.randrange(len(s))
                j = r.randrange(i, min(len(s), i + 12) + 1)
                s = s[i:j]
            q = self.vary_case(s)
        elif k < 0.43:
            q = ""
        elif k < 0.58:
            q = r.choice(SPECIAL_QUERIES)
        elif k < 0.7:
            q = self.adversarial()
        elif k < 0.82:
            q = self.vary_case(r.choice(BASE_NAMES + BASE_TYPES + BASE_OBS))
        elif pool and k < 0.92:
            q = self.vary_case(r.choice(pool))
        else:
            q = self.fresh()
        return {"query": q}

    def a_open_nodes(self):
        r = self.rng
        names = [self.live_name(0.6) for _ in range(r.choice([0, 1, 1, 2, 3]))]
        if names and r.random() < 0.15:
            names.append(r.choice(names))
        if names and r.random() < 0.1:
            names.append(self.vary_case(r.choice(names)))
        return {"names": names}

    def invalid(self):
        r = self.rng
        cases = [
            ("create_entities", {}),
            ("create_entities", {"entities": None}),
            ("create_entities", {"entities": {"name": "a"}}),
            ("create_entities", {"entities": [{"name": 1, "entityType": "t", "observations": []}]}),
            ("create_entities", {"entities": [{"name": "a", "entityType": "t"}]}),
            ("create_entities", {"entities": [{"name": "a", "entityType": "t", "observations": "x"}]}),
            ("create_entities", {"entities": [{"name": "a", "entityType": None, "observations": [1]}]}),
            ("create_relations", {"relations": [{"from": "a", "to": "b"}]}),
            ("create_relations", {"relations": "a->b"}),
            ("add_observations", {"observations": [{"entityName": self.name(), "contents": [1]}]}),
            ("add_observations", {"observations": [{"entityName": self.name()}]}),
            ("add_observations", {}),
            ("delete_entities", {"entityNames": "Alice"}),
            ("delete_entities", {"entityNames": [1, 2]}),
            ("delete_observations", {"deletions": [{"entityName": "a"}]}),
            ("delete_relations", {"relations": [{"from": 1, "to": "b", "relationType": "r"}]}),
            ("search_nodes", {}),
            ("search_nodes", {"query": None}),
            ("search_nodes", {"query": 5}),
            ("open_nodes", {"names": "Alice"}),
            ("open_nodes", {"names": [None]}),
            ("no_such_tool", {}),
        ]
        return r.choice(cases)


# ----------------------------------------------------------------------------
# foreign (non-reference-styled but valid) memory files
# ----------------------------------------------------------------------------

def foreign_file(rng: random.Random, gen: Gen) -> tuple[bytes, dict]:
    """A valid JSONL memory file written in a random non-reference style, and
    the graph the reference is expected to read from it."""
    ents, rels = [], []
    used = set()
    for _ in range(rng.randint(0, 12)):
        n = gen.name(0.0)
        if n in used and rng.random() < 0.7:
            continue
        used.add(n)
        gen.names.append(n)
        e = {"name": n, "entityType": gen.etype(), "observations": [gen.obs_str(0.0) for _ in range(rng.randint(0, 3))]}
        gen.obs.extend(e["observations"])
        ents.append(e)
    for _ in range(rng.randint(0, 10)):
        rel = {"from": gen.name(0.8), "to": gen.name(0.8), "relationType": gen.rel_type()}
        gen.rels.append(rel)
        rels.append(rel)
    items = [dict(type="entity", **e) for e in ents] + [dict(type="relation", **r) for r in rels]
    if rng.random() < 0.5:
        rng.shuffle(items)      # interleave entities and relations
    eol = rng.choice(["\n", "\r\n"])
    ascii_only = rng.random() < 0.5
    seps = rng.choice([(",", ":"), (", ", ": "), (" ,", " : ")])
    lines = []
    for it in items:
        keys = list(it)
        if rng.random() < 0.5:
            rng.shuffle(keys)
        d = {k: it[k] for k in keys}
        if rng.random() < 0.15:
            d["extraField"] = rng.choice([1, "x", [1, 2], {"nested": True}, None])
        try:
            s = json.dumps(d, ensure_ascii=ascii_only, separators=seps)
            s.encode("utf-8")
        except UnicodeEncodeError:
            s = json.dumps(d, ensure_ascii=True, separators=seps)
        if rng.random() < 0.1:
            s = "  " + s + " \t"
        lines.append(s)
        if rng.random() < 0.1:
            lines.append(rng.choice(["", "   ", "\t"]))
        if rng.random() < 0.05:
            lines.append(json.dumps({"type": rng.choice(["note", "Entity", "meta"]), "v": 1}))
    body = eol.join(lines)
    if rng.random() < 0.5:
        body += eol
    # expected graph, in reference read order
    exp = {"entities": [], "relations": []}
    for it in items:
        if it["type"] == "entity":
            exp["entities"].append({k: it[k] for k in ("name", "entityType", "observations")})
        else:
            exp["relations"].append({k: it[k] for k in ("from", "to", "relationType")})
    return body.encode("utf-8", "surrogatepass"), exp


# ----------------------------------------------------------------------------
# the harness
# ----------------------------------------------------------------------------

class Harness:
    def __init__(self, a):
        self.a = a
        self.skip = set(a.skip)
        if not a.exotic:
            self.skip.add("exotic")
        self.rep = Report(a.strict, a.max_details, self.skip)
        self.tmp_root = tempfile.mkdtemp(prefix="kg-conformance-")

    # --- server pairs -------------------------------------------------------
    def new_dir(self, tag):
        return tempfile.mkdtemp(prefix=tag + "-", dir=self.tmp_root)

    def make(self, side, d, filename=MEMORY_BASENAME):
        a = self.a
        f = os.path.join(d, filename)
        if side == "ref":
            return Server("ref", a.ref, a.ref_args_template, a.ref_env_template, f, a.timeout)
        return Server("cand", a.cand, a.cand_args_template, a.cand_env_template, f, a.timeout)

    def pair(self, tag, content: bytes | None = None, subdir=None):
        """Two stopped servers with private dirs holding identical initial files."""
        out = []
        for side in ("ref", "cand"):
            d = self.new_dir("%s-%s" % (tag, side))
            fname = MEMORY_BASENAME
            if subdir:
                fname = os.path.join(subdir, MEMORY_BASENAME)
            s = self.make(side, d, fname)
            s.dir = d   # cwd/{dir} stays the private dir even when file is in a missing subdir
            if content is not None:
                with open(s.file, "wb") as fh:
                    fh.write(content)
            out.append(s)
        return out

    @staticmethod
    def boot(servers, init=True):
        """Start all servers first (their start-up overlaps), then initialize each."""
        for s in servers:
            s.start()
        if init:
            for s in servers:
                s.initialize()

    @staticmethod
    def read_file(path):
        try:
            with open(path, "rb") as fh:
                return fh.read()
        except FileNotFoundError:
            return None
        except IsADirectoryError:
            return b"<directory>"

    # --- single comparisons -------------------------------------------------
    def both(self, ref, cand, fn):
        """Run fn on each server; exceptions become ServerError values."""
        res = []
        for s in (ref, cand):
            try:
                res.append(fn(s))
            except ServerError as e:
                res.append(e)
        return res

    def compare_call(self, category, where, ref, cand, tool, args, ascii_only=True):
        rr, cr = self.both(ref, cand, lambda s: s.request("tools/call", {"name": tool, "arguments": args}, ascii_only))
        lr, sr = outcome(rr, tool if tool in TOOLS else None)
        lc, sc = outcome(cr, tool if tool in TOOLS else None)
        sr, sc = scrub(sr, ref), scrub(sc, cand)
        kind = lr[0]
        if kind == "ok" and tool in GRAPH_TOOLS and isinstance(rr, dict):
            sc_ = (rr.get("result") or {}).get("structuredContent") or {}
            kind = "ok-empty" if not sc_.get("entities") and not sc_.get("relations") else "ok-hit"
        elif kind == "ok" and tool in ("create_entities", "create_relations") and isinstance(rr, dict):
            sc_ = (rr.get("result") or {}).get("structuredContent") or {}
            kind = "ok-empty" if not sc_.get(JSON_TEXT_TOOLS[tool]) else "ok-new"
        self.rep.coverage[(tool if tool in TOOLS else "<unknown tool>", kind)] += 1
        what = "%s %s" % (tool, short(args, 200))
        if (tool == "search_nodes" and getattr(self.a, "search_superset", False)
                and lr[0] == "ok" and lc[0] == "ok" and lr != lc and superset_graph(rr, cr)):
            lc = lr
        extra = None
        if isinstance(rr, ServerError) or isinstance(cr, ServerError):
            extra = "ref: %s / cand: %s" % (rr if isinstance(rr, ServerError) else "ok",
                                            cr if isinstance(cr, ServerError) else "ok")
        self.rep.check(category, where, what, lr, lc, sr, sc, extra)
        return rr, cr

    def compare_req(self, category, where, ref, cand, method, params=None, lenient_fn=None):
        rr, cr = self.both(ref, cand, lambda s: s.request(method, params))
        lr, sr = outcome(rr)
        lc, sc = outcome(cr)
        sr, sc = scrub(sr, ref), scrub(sc, cand)
        if lenient_fn:
            lr = lenient_fn(rr)
            lc = lenient_fn(cr)
        extra = None
        if isinstance(rr, ServerError) or isinstance(cr, ServerError):
            extra = "ref: %s / cand: %s" % (rr if isinstance(rr, ServerError) else "ok",
                                            cr if isinstance(cr, ServerError) else "ok")
        self.rep.check(category, where, method + " " + short(params, 150), lr, lc, sr, sc, extra)
        return rr, cr

    def compare_files(self, where, ref, cand, category="storage"):
        rb, cb = self.read_file(ref.file), self.read_file(cand.file)
        rp, cp = parse_memory_file(rb), parse_memory_file(cb)
        if rp[0] == "ok" and cp[0] == "ok":
            lr, lc = ("ok", canon_graph(rp[1])), ("ok", canon_graph(cp[1]))
        else:  # unparseable: lenient compares bytes
            lr, lc = (rp[0], rb), (cp[0], cb)
        sr, sc = ("bytes", rb), ("bytes", cb)
        self.rep.check(category, where, "memory file contents", lr, lc,
                       (sr, rp[0]), (sc, cp[0]))
        # leftover files (temp files, locks) are strict-only
        def listing(s):
            out = []
            for root, dirs, files in os.walk(s.dir):
                for fn in files:
                    p = os.path.relpath(os.path.join(root, fn), s.dir)
                    if os.path.join(s.dir, p) != s.file:
                        out.append(p)
            return sorted(out)
        lr_, lc_ = listing(ref), listing(cand)
        self.rep.check(category, where, "extra files in data dir", None, None, lr_, lc_)
        return rb, cb

    def compare_graph_read(self, category, where, ref, cand):
        return self.compare_call(category, where, ref, cand, "read_graph", {})

    # --- phases ---------------------------------------------------------------
    def preflight(self):
        """Both commands must at least start and answer initialize."""
        ref, cand = self.pair("preflight")
        try:
            for sv in (ref, cand):
                try:
                    sv.start()
                    r = sv.initialize()
                    if "result" not in r:
                        raise ServerError("%s: initialize failed: %s" % (sv.label, short(r)))
                except ServerError as e:
                    print("preflight failed: %s" % e, file=sys.stderr)
                    return False
        finally:
            for sv in (ref, cand):
                sv.stop()
        return True

    def run(self):
        t0 = time.monotonic()
        if not self.preflight():
            shutil.rmtree(self.tmp_root, ignore_errors=True)
            return 2
        try:
            if "protocol" not in self.skip:
                self.phase_protocol()
            for seed in self.a.seed_list:
                self.phase_random(seed)
            if "fixtures" not in self.skip or "fixtures-quirk" not in self.skip:
                self.phase_fixtures()
            if "concurrency" not in self.skip and self.a.concurrency:
                self.phase_concurrency()
        finally:
            if not self.a.keep:
                shutil.rmtree(self.tmp_root, ignore_errors=True)
            else:
                print("kept temp dir:", self.tmp_root)
        self.rep.note("elapsed %.1fs" % (time.monotonic() - t0))
        if self.a.json_report:
            with open(self.a.json_report, "w") as fh:
                json.dump({"checks": self.rep.n, "lenient_failures": self.rep.len_fail,
                           "strict_failures": self.rep.strict_fail,
                           "by_category": self.rep.by_cat, "failures": self.rep.failures},
                          fh, indent=1, ensure_ascii=True, default=str)
        self.rep.summary()
        main = self.rep.strict_fail if self.a.strict else self.rep.len_fail
        return 0 if main == 0 else 1

    def log(self, *x):
        if self.a.verbose:
            print(*x, file=sys.stderr)

    # ..........................................................................
    def phase_protocol(self):
        self.log("[protocol]")
        skip = self.skip
        # protocol version negotiation, initialize result
        for pv in ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05", "1999-01-01"]:
            ref, cand = self.pair("init-%s" % pv)
            try:
                for s in (ref, cand):
                    s.start()
                rr, cr = self.both(ref, cand, lambda s: s.request(
                    "initialize", {"protocolVersion": pv, "capabilities": {},
                                   "clientInfo": {"name": "kg-conformance", "version": "1"}}))

                def len_init(r):
                    if isinstance(r, ServerError) or "result" not in r:
                        return outcome(r)[0]
                    res = r["result"]
                    caps = res.get("capabilities") or {}
                    return ("ok", res.get("protocolVersion"), sorted(caps),
                            bool((caps.get("resources") or {}).get("subscribe")))
                self.rep.check("protocol", "initialize(%s)" % pv, "initialize result",
                               len_init(rr), len_init(cr), outcome(rr)[1], outcome(cr)[1])
                if pv == DEFAULT_PROTOCOL:
                    for s in (ref, cand):
                        try:
                            s.notify("notifications/initialized")
                        except ServerError:
                            pass
                    self.compare_tools_list(ref, cand)
                    self.compare_req("protocol", "ping", ref, cand, "ping")
                    self.compare_req("protocol", "unknown method", ref, cand, "foo/bar", {})
                    self.compare_call("protocol", "unknown tool", ref, cand, "no_such_tool", {})
                    self.compare_req("protocol", "tools/call without params", ref, cand, "tools/call",
                                     None, lenient_fn=lambda r: outcome(r)[0][:1])
                    self.compare_req("protocol", "tools/call without name", ref, cand, "tools/call",
                                     {"arguments": {}}, lenient_fn=lambda r: outcome(r)[0][:1])
                    self.compare_req("protocol", "tools/call arguments array", ref, cand, "tools/call",
                                     {"name": "read_graph", "arguments": []},
                                     lenient_fn=lambda r: outcome(r)[0][:1])
                    self.compare_req("protocol", "prompts/list", ref, cand, "prompts/list", {})
                    rr, cr = self.both(ref, cand, lambda s: s.request("ping", None, msg_id="abc-\u00e9"))
                    self.rep.check("protocol", "string request id", "ping with id 'abc-\u00e9'",
                                   outcome(rr)[0], outcome(cr)[0], outcome(rr)[1], outcome(cr)[1])
                    if "resources" not in skip:
                        self.compare_req("resources", "resources/list", ref, cand, "resources/list", {})
                        self.compare_req("resources", "resources/templates/list", ref, cand,
                                         "resources/templates/list", {})
                        self.compare_req("resources", "resources/read", ref, cand, "resources/read",
                                         {"uri": "memory://knowledge-graph"}, lenient_fn=resource_view)
                        self.compare_req("resources", "resources/read unknown uri", ref, cand,
                                         "resources/read", {"uri": "memory://nope"},
                                         lenient_fn=lambda r: outcome(r)[0][:1])
                    if "protocol-quirk" not in skip:
                        self.protocol_quirks(ref, cand)
            except ServerError as e:
                self.rep.check("protocol", "initialize(%s)" % pv, "server error", None, str(e), None, str(e))
            finally:
                for s in (ref, cand):
                    s.stop()
        if "protocol-quirk" not in skip:
            # tools/call before initialize
            ref, cand = self.pair("noinit")
            try:
                for s in (ref, cand):
                    s.start()
                self.compare_call("protocol-quirk", "tools/call before initialize", ref, cand, "read_graph", {})
            except ServerError as e:
                self.rep.check("protocol-quirk", "tools/call before initialize", "server error",
                               None, str(e)[:300], None, str(e)[:300])
            finally:
                for s in (ref, cand):
                    s.stop()

    def compare_tools_list(self, ref, cand):
        rr, cr = self.both(ref, cand, lambda s: s.request("tools/list", {}))

        def len_tools(r):
            if isinstance(r, ServerError) or "result" not in r:
                return outcome(r)[0]
            tools = r["result"].get("tools") or []
            return ("ok", sorted((canon({k: t.get(k) for k in
                                         ("name", "title", "description", "inputSchema",
                                          "outputSchema", "annotations")})) for t in tools))
        self.rep.check("protocol", "tools/list", "tools/list result", len_tools(rr), len_tools(cr),
                       outcome(rr)[1], outcome(cr)[1])

    def protocol_quirks(self, ref, cand):
        # a garbage line and a JSON batch: reference answers neither, and keeps going
        for label, raw in [("garbage line", b"this is not json\n"),
                           ("non-message JSON", b'{"foo": 1}\n'),
                           ("JSON-RPC batch", b'[{"jsonrpc":"2.0","id":9001,"method":"ping"}]\n')]:
            res = []
            for s in (ref, cand):
                try:
                    s.stray = []
                    s.send_raw(raw)
                    r = s.request("ping")
                    time.sleep(0.05)
                    res.append(("alive", outcome(r)[0], len(s.stray)))
                except ServerError as e:
                    res.append(("dead", str(e)[:100]))
            self.rep.check("protocol-quirk", label, "no reply to it, then ping works",
                           res[0][:3] if res[0][0] == "alive" else res[0][:1],
                           res[1][:3] if res[1][0] == "alive" else res[1][:1], res[0], res[1])

    # ..........................................................................
    def phase_random(self, seed):
        a = self.a
        rng = random.Random(seed)
        gen = Gen(random.Random(rng.random()), self.skip, a.exotic)
        content = None
        foreign = "foreign-file" not in self.skip and rng.random() < a.foreign_prob
        expected_initial = None
        if foreign:
            content, expected_initial = foreign_file(random.Random(rng.random()), gen)
        ref, cand = self.pair("seed%d" % seed, content)
        subscribed = "resources" not in self.skip and rng.random() < 0.5
        ascii_rng = random.Random(rng.random())
        self.log("[seed %d] foreign=%s subscribed=%s" % (seed, foreign, subscribed))
        step = -1
        try:
            for s in (ref, cand):
                s.start()
            rr, cr = self.both(ref, cand, lambda s: s.initialize())
            self.rep.check("protocol", "seed %d init" % seed, "initialize",
                           outcome(rr)[0][:1], outcome(cr)[0][:1], outcome(rr)[0][:1], outcome(cr)[0][:1])
            if foreign:
                rr, cr = self.compare_graph_read("foreign-file", "seed %d foreign file read" % seed, ref, cand)
                if not isinstance(rr, ServerError) and "result" in rr:
                    got = rr["result"].get("structuredContent")
                    # validates the harness's model of the reference reader
                    self.rep.check("foreign-file", "seed %d foreign file model" % seed,
                                   "ref read_graph vs expected graph of foreign file",
                                   canon_graph(expected_initial), canon_graph(got),
                                   expected_initial, got)
            if subscribed:
                self.compare_req("resources", "seed %d subscribe" % seed, ref, cand,
                                 "resources/subscribe", {"uri": "memory://knowledge-graph"})
                for s in (ref, cand):
                    s.take_notifications()
            totals = [collections.Counter(), collections.Counter()]
            for step in range(a.steps):
                kind, payload = gen.op()
                where = "seed %d step %d" % (seed, step)
                if kind == "restart":
                    self.log(where, "restart")
                    self.compare_files(where + " (before restart)", ref, cand)
                    for s in (ref, cand):
                        s.stop()
                    self.boot((ref, cand))
                    for s in (ref, cand):
                        if subscribed:
                            s.request("resources/subscribe", {"uri": "memory://knowledge-graph"})
                        s.take_notifications()
                    self.compare_graph_read("restart", where + " read after restart", ref, cand)
                    continue
                if kind == "resource":
                    self.compare_req("resources", where, ref, cand, "resources/read", payload,
                                     lenient_fn=resource_view)
                    continue
                tool, args = payload
                flags = gen.pending_flags
                cat = "tools"
                for f in ("exotic", "invalid-args", "long-strings", "extra-fields", "intra-batch-dups"):
                    if f in flags:
                        cat = f
                        break
                self.log(where, tool, short(args, 120))
                rr, cr = self.compare_call(cat, where, ref, cand, tool, args,
                                           ascii_only=ascii_rng.random() < 0.5)
                if isinstance(rr, ServerError) or isinstance(cr, ServerError):
                    raise ServerError("aborting session after server failure at %s" % where)
                gen.observe(tool, args, rr)
                if subscribed:
                    nr = [(m.get("method"), canon(m.get("params"))) for m in ref.take_notifications()]
                    nc = [(m.get("method"), canon(m.get("params"))) for m in cand.take_notifications()]
                    totals[0].update(nr)
                    totals[1].update(nc)
                    self.rep.check("resources", where, "notifications during " + tool, None, None, nr, nc)
            # flush trailing notifications, compare totals
            if subscribed:
                for i, s in enumerate((ref, cand)):
                    s.request("ping")
                    totals[i].update((m.get("method"), canon(m.get("params"))) for m in s.take_notifications())
                self.rep.check("resources", "seed %d" % seed, "total resource notifications",
                               sorted(totals[0].items()), sorted(totals[1].items()),
                               sorted(totals[0].items()), sorted(totals[1].items()))
            # final state, restart, compare again
            self.compare_graph_read("tools", "seed %d final read" % seed, ref, cand)
            for s in (ref, cand):
                s.stop()
            self.compare_files("seed %d final" % seed, ref, cand)
            if "restart" not in self.skip:
                self.boot((ref, cand))
                final = self.compare_graph_read("restart", "seed %d read after final restart" % seed, ref, cand)
                for s in (ref, cand):
                    s.stop()
            else:
                final = None
            if "swap" not in self.skip:
                self.swap_check(seed, ref, cand, final)
            if "format" not in self.skip:
                self.format_check(seed, ref, cand)
        except ServerError as e:
            self.rep.check("tools", "seed %d step %d" % (seed, step), "session aborted",
                           None, str(e)[:400], None, str(e)[:400])
        finally:
            for s in (ref, cand):
                s.stop()

    def swap_check(self, seed, ref, cand, final):
        """Reference reads the candidate's file and vice versa."""
        rb, cb = self.read_file(ref.file), self.read_file(cand.file)
        # ref2 reads cand's bytes, cand2 reads ref's bytes
        d1, d2 = self.new_dir("swap%d-ref" % seed), self.new_dir("swap%d-cand" % seed)
        ref2, cand2 = self.make("ref", d1), self.make("cand", d2)
        if cb is not None:
            open(ref2.file, "wb").write(cb)
        if rb is not None:
            open(cand2.file, "wb").write(rb)
        try:
            self.boot((ref2, cand2))
            r_on_c, c_on_r = self.both(ref2, cand2, lambda s: s.request(
                "tools/call", {"name": "read_graph", "arguments": {}}))
            # the reference must see, in the candidate's file, what it saw in its own
            ref_own = final[0] if final else None
            cand_own = final[1] if final else None
            if ref_own is not None:
                self.rep.check("swap", "seed %d" % seed, "ref reading cand's file vs ref reading its own",
                               outcome(ref_own, "read_graph")[0], outcome(r_on_c, "read_graph")[0],
                               outcome(ref_own, "read_graph")[1], outcome(r_on_c, "read_graph")[1])
            if cand_own is not None:
                self.rep.check("swap", "seed %d" % seed, "cand reading ref's file vs cand reading its own",
                               outcome(cand_own, "read_graph")[0], outcome(c_on_r, "read_graph")[0],
                               outcome(cand_own, "read_graph")[1], outcome(c_on_r, "read_graph")[1])
        finally:
            for s in (ref2, cand2):
                s.stop()

    def format_check(self, seed, ref, cand):
        """Each file must equal what the reference serializer (per spec) writes for its graph."""
        for s in (ref, cand):
            b = self.read_file(s.file)
            p = parse_memory_file(b)
            if b is None or p[0] != "ok":
                continue
            exp = reference_file_bytes(p[1])
            # lenient: parseable; strict: byte-exact spec serialization
            self.rep.check("format", "seed %d %s file" % (seed, s.label), "file bytes == spec serializer(graph)",
                           None, None, exp, b)

    # ..........................................................................
    def phase_fixtures(self):
        E = lambda **k: json.dumps(dict(type="entity", **k), ensure_ascii=False)
        R = lambda **k: json.dumps(dict(type="relation", **k), ensure_ascii=False)
        std_reads = [("read_graph", {}), ("search_nodes", {"query": "alice"}), ("search_nodes", {"query": ""}),
                     ("open_nodes", {"names": ["Alice", "Acme"]})]
        tolerant = (
            '{"type":"entity","name":"Alice","entityType":"person","observations":["likes tea","works at Acme"],"extra":1}\r\n'
            '\r\n   \n'
            '{"observations":["ordered differently"],"entityType":"company","name":"Acme","type":"entity"}\n'
            '{"type":"weird","a":1}\n42\n"str"\n[1,2]\ntrue\n'
            '{"name":"NoType","entityType":"t","observations":[]}\n'
            '{"type":"relation","from":"Alice","to":"Acme","relationType":"works_at","since":2020}\n'
            '{"type":"relation","relationType":"knows","to":"Alice","from":"Acme"}\n'
            '{"type":"entity","name":"Zo\\u00eb","entityType":"\\u4eba","observations":["\\ud83d\\ude00"]}\n'
            '  {"type" : "entity" , "name":"Spaced" , "entityType" : "t", "observations" : [ ] }  \t\n'
            '{"type":"entity","name":"Alice","entityType":"dup","observations":[]}\n'
            '{"type":"relation","from":"Alice","to":"Acme","relationType":"works_at"}\n'
            '{"type":"entity","name":"Last","entityType":"t","observations":["no newline at end"]}'
        ).encode("utf-8")
        good = E(name="Alice", entityType="person", observations=["x"]) + "\n"
        mut_ops = [("create_entities", {"entities": [{"name": "New", "entityType": "t", "observations": []}]}),
                   ("add_observations", {"observations": [{"entityName": "Alice", "contents": ["more"]}]}),
                   ("delete_entities", {"entityNames": ["Nope"]})]
        big = []
        for i in range(1500):
            big.append(E(name="n%d" % i, entityType="t%d" % (i % 7), observations=["obs %d" % i, "shared"]))
        for i in range(2500):
            big.append(R(**{"from": "n%d" % (i % 1500), "to": "n%d" % ((i * 7) % 1500), "relationType": "r%d" % (i % 3)}))
        trap_names = ["\u00e9", "e\u0301", "\u00c9", "\u039f\u0394\u039f\u03a3", "\u03a3\u0391\u03a3",
                      "\u03a3\u03af\u03c3\u03c5\u03c6\u03bf\u03c2", "\u0130stanbul", "istanbul", "\u0131rmak",
                      "stra\u00dfe", "STRASSE", "\u1e9e", "\u212a", "\u2126mega", "\u01c5", "\u01c8", "\ufb01le",
                      "\u1c89", "\u216b", "\uff21", "\U00010400", "\U0001e900", "\U00016e40", "\ua7cb",
                      "\U00010d50", "\ua7dc", "\ua7da", "\u2c2f", "\U0001d400", "\u00df", "I", "i"]
        trap_queries = sorted(set(SPECIAL_QUERIES + trap_names + [
            "\u0264", "\U00010d70", "\U00010428", "\U0001e922", "\U00016e60", "\u217b", "\uff41",
            "\u1c8a", "\u01c9", "\u01c6", "\u03c3\u03b1\u03c2", "\u03c3\u03b1\u03c3", "\u2c5f", "\u019b",
            "\ua7db", "e", "\u0301", "\u0307", "\u03c9mega", "STRA\u1e9eE", "stra\u1e9ee", "IRMAK"]))
        trap_ops = [("create_entities", {"entities": [
            {"name": n, "entityType": "trap", "observations": ["obs " + n.upper(), n.lower()]} for n in trap_names]}),
            ("create_relations", {"relations": [{"from": trap_names[i], "to": trap_names[(i + 1) % len(trap_names)],
                                                 "relationType": "next"} for i in range(len(trap_names))]})]
        trap_ops += [("search_nodes", {"query": q}) for q in trap_queries]
        trap_ops += [("open_nodes", {"names": ["\u00e9"]}), ("open_nodes", {"names": ["e\u0301"]}),
                     ("open_nodes", {"names": ["\u00c9", "ISTANBUL", "\u0130STANBUL"]}),
                     ("delete_entities", {"entityNames": ["E\u0301", "\u00e9"]}), ("read_graph", {})]
        fixtures = [
            # (name, category, content or None, subdir, ops)
            ("unicode case traps", "fixtures", None, None, trap_ops),
            ("tolerant parsing", "fixtures", tolerant, None,
             std_reads + [("add_observations", {"observations": [{"entityName": "Alice", "contents": ["new"]}]}),
                          ("open_nodes", {"names": ["Alice"]}),
                          ("create_relations", {"relations": [{"from": "Alice", "to": "Acme", "relationType": "works_at"}]}),
                          ("delete_relations", {"relations": [{"from": "Alice", "to": "Acme", "relationType": "works_at"}]}),
                          ("delete_entities", {"entityNames": ["Spaced"]}), ("read_graph", {})]),
            ("external edits between calls", "fixtures", good.encode(), None,
             [("read_graph", {}),
              ("<append-file>", ("\n" + E(name="Outside", entityType="t", observations=["written by another process"])).encode()),
              ("read_graph", {}), ("search_nodes", {"query": "another"}),
              ("add_observations", {"observations": [{"entityName": "Outside", "contents": ["seen"]}]}),
              ("<append-file>", ("\n" + R(**{"from": "Outside", "to": "Alice", "relationType": "knows"})).encode()),
              ("open_nodes", {"names": ["Alice"]}), ("read_graph", {})]),
            ("empty file", "fixtures", b"", None,
             [("read_graph", {}), ("delete_relations", {"relations": []}), ("read_graph", {})]),
            ("whitespace-only file", "fixtures", b"\n\n  \r\n\t\n", None,
             [("read_graph", {}), ("search_nodes", {"query": ""}), ("delete_entities", {"entityNames": []})]),
            ("missing file, no-op mutation", "fixtures", None, None,
             [("read_graph", {}), ("delete_entities", {"entityNames": ["x"]}), ("read_graph", {})]),
            ("missing directory", "fixtures-quirk", None, "no/such/dir",
             [("read_graph", {}), ("create_entities", {"entities": [{"name": "A", "entityType": "t", "observations": []}]}),
              ("delete_entities", {"entityNames": ["A"]}), ("read_graph", {})]),
            ("duplicate names/relations in file", "fixtures",
             (E(name="A", entityType="first", observations=["1"]) + "\n" + E(name="A", entityType="second", observations=["2"]) + "\n"
              + R(**{"from": "A", "to": "A", "relationType": "r"}) + "\n" + R(**{"from": "A", "to": "A", "relationType": "r"})).encode(), None,
             [("read_graph", {}), ("open_nodes", {"names": ["A"]}),
              ("add_observations", {"observations": [{"entityName": "A", "contents": ["2", "3"]}]}),
              ("delete_observations", {"deletions": [{"entityName": "A", "observations": ["1", "2"]}]}),
              ("create_relations", {"relations": [{"from": "A", "to": "A", "relationType": "r"}]}),
              ("read_graph", {}), ("delete_relations", {"relations": [{"from": "A", "to": "A", "relationType": "r"}]}),
              ("read_graph", {}), ("delete_entities", {"entityNames": ["A"]}), ("read_graph", {})]),
            ("large file", "fixtures", "\n".join(big).encode(), None,
             [("search_nodes", {"query": "N14"}), ("search_nodes", {"query": "SHARED"}),
              ("open_nodes", {"names": ["n1", "n2", "n999"]}),
              ("add_observations", {"observations": [{"entityName": "n5", "contents": ["shared", "new"]}]}),
              ("delete_entities", {"entityNames": ["n0", "n1"]}), ("read_graph", {})]),
            ("corrupt JSON line", "fixtures-quirk", (good + "{not json\n").encode(), None,
             std_reads + mut_ops),
            ("null line", "fixtures-quirk", (good + "null\n").encode(), None, std_reads + mut_ops),
            ("UTF-8 BOM", "fixtures-quirk", ("\ufeff" + good).encode(), None, std_reads + mut_ops),
            ("entity without observations", "fixtures-quirk",
             (E(name="Alice", entityType="person") + "\n" + E(name="Bob", entityType="p", observations=[])).encode(), None,
             std_reads + [("open_nodes", {"names": ["Bob"]}), ("search_nodes", {"query": "bob"})] + mut_ops),
            ("entity name is a number", "fixtures-quirk",
             (E(name=5, entityType="t", observations=[]) + "\n" + E(name="Alice", entityType="p", observations=[])).encode(), None,
             std_reads + mut_ops),
            ("observation is a number", "fixtures-quirk",
             E(name="Alice", entityType="t", observations=[1, "x"]).encode(), None, std_reads + mut_ops),
            ("relation missing relationType", "fixtures-quirk",
             (good + R(**{"from": "Alice", "to": "Alice"})).encode(), None, std_reads + mut_ops),
            ("invalid UTF-8 byte", "fixtures-quirk",
             good.encode() + b'{"type":"entity","name":"bad\xff","entityType":"t","observations":[]}\n', None,
             std_reads + mut_ops),
        ]
        for name, cat, content, subdir, ops in fixtures:
            if cat in self.skip:
                continue
            self.log("[fixture] %s" % name)
            ref, cand = self.pair("fx", content, subdir)
            try:
                self.boot((ref, cand))
                for i, (tool, args) in enumerate(ops):
                    if tool == "<append-file>":   # an outside writer touches the file
                        for sv in (ref, cand):
                            with open(sv.file, "ab") as fh:
                                fh.write(args)
                        continue
                    rr, cr = self.compare_call(cat, "fixture '%s' op %d" % (name, i), ref, cand, tool, args)
                    if isinstance(rr, ServerError) or isinstance(cr, ServerError):
                        raise ServerError("server failure")
                for s in (ref, cand):
                    s.stop()
                self.compare_files("fixture '%s' final" % name, ref, cand, category=cat)
                if "restart" not in self.skip:
                    self.boot((ref, cand))
                    self.compare_graph_read(cat, "fixture '%s' read after restart" % name, ref, cand)
            except ServerError as e:
                self.rep.check(cat, "fixture '%s'" % name, "fixture aborted", None, str(e)[:300], None, str(e)[:300])
            finally:
                for s in (ref, cand):
                    s.stop()

    # ..........................................................................
    def phase_concurrency(self):
        """Informational: pipelined create_entities without waiting for replies."""
        ref, cand = self.pair("conc")
        res = []
        for s in (ref, cand):
            try:
                s.start()
                s.initialize()
                n = 20
                buf = b"".join(encode_msg({"jsonrpc": "2.0", "id": 5000 + i, "method": "tools/call",
                                           "params": {"name": "create_entities", "arguments": {"entities": [
                                               {"name": "E%d" % i, "entityType": "t", "observations": []}]}}})
                               for i in range(n))
                s.send_raw(buf)
                order = []
                for i in range(n):
                    m = s._read(time.monotonic() + s.timeout)
                    order.append(m.get("id"))
                r = s.request("tools/call", {"name": "read_graph", "arguments": {}})
                kept = len(r["result"]["structuredContent"]["entities"])
                res.append("%s kept %d/%d pipelined creates, replies %s" % (
                    s.label, kept, n, "in order" if order == sorted(order) else "out of order"))
            except Exception as e:  # informational only
                res.append("%s: %s" % (s.label, e))
            finally:
                s.stop()
        self.rep.note("concurrency: " + "; ".join(res))


# ----------------------------------------------------------------------------

def parse_seeds(s):
    out = []
    for part in s.split(","):
        part = part.strip()
        if not part:
            continue
        if "-" in part[1:]:
            lo, hi = part.split("-", 1)
            out.extend(range(int(lo), int(hi) + 1))
        else:
            out.append(int(part))
    return out


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=__doc__.split("\n", 2)[2])
    p.add_argument("--ref", help="reference server command (shell words)")
    p.add_argument("--cand", help="candidate server command (shell words)")
    p.add_argument("--ref-only", action="store_true", help="candidate := reference (self-check)")
    p.add_argument("--ref-env-template", default="MEMORY_FILE_PATH={file}")
    p.add_argument("--ref-args-template", default="")
    p.add_argument("--cand-env-template", default=None, help="default: same as --ref-env-template")
    p.add_argument("--cand-args-template", default=None, help="default: same as --ref-args-template")
    p.add_argument("--seeds", default="1-3", help="e.g. 1-5,42 (default 1-3)")
    p.add_argument("--steps", type=int, default=150, help="random steps per seed (default 150)")
    p.add_argument("--foreign-prob", type=float, default=0.3,
                   help="probability a seed starts from a foreign-styled memory file")
    p.add_argument("--timeout", type=float, default=30.0, help="seconds per request")
    p.add_argument("--strict", action="store_true", help="strict verdicts decide pass/fail")
    p.add_argument("--exotic", action="store_true", help="also send lone UTF-16 surrogates")
    p.add_argument("--skip", default="", help="comma-separated categories to skip")
    p.add_argument("--search-superset", action="store_true",
                   help="lenient: a candidate search_nodes result passes when its entities and "
                        "relations contain all of the reference's (extra ranked hits allowed)")
    p.add_argument("--list-categories", action="store_true")
    p.add_argument("--no-concurrency", dest="concurrency", action="store_false",
                   help="skip the informational pipelining probe")
    p.add_argument("--max-details", type=int, default=10)
    p.add_argument("--json-report", help="write all failures as JSON here")
    p.add_argument("--keep", action="store_true", help="keep temp dirs")
    p.add_argument("-v", "--verbose", action="store_true")
    a = p.parse_args(argv)
    if a.list_categories:
        for k, v in CATEGORIES.items():
            print("%-16s %s" % (k, v))
        return 0
    if not a.ref:
        p.error("--ref is required")
    if a.ref_only:
        a.cand = a.ref
        if a.cand_env_template is None:
            a.cand_env_template = a.ref_env_template
        if a.cand_args_template is None:
            a.cand_args_template = a.ref_args_template
    if not a.cand:
        p.error("--cand or --ref-only is required")
    if a.cand_env_template is None:
        a.cand_env_template = a.ref_env_template
    if a.cand_args_template is None:
        a.cand_args_template = a.ref_args_template
    a.skip = [x.strip() for x in a.skip.split(",") if x.strip()]
    bad = [x for x in a.skip if x not in CATEGORIES]
    if bad:
        p.error("unknown categories: %s (see --list-categories)" % ", ".join(bad))
    a.seed_list = parse_seeds(a.seeds)
    print("ref : %s  [env: %s] [args: %s]" % (a.ref, a.ref_env_template, a.ref_args_template))
    print("cand: %s  [env: %s] [args: %s]%s" % (a.cand, a.cand_env_template, a.cand_args_template,
                                                "  (--ref-only)" if a.ref_only else ""))
    print("seeds: %s, steps/seed: %d, criterion: %s" % (a.seeds, a.steps, "strict" if a.strict else "lenient"))
    return Harness(a).run()


if __name__ == "__main__":
    sys.exit(main())
