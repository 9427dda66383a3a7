#!/usr/bin/env python3
"""The official MCP Python SDK's client (mcp 2.3, MCP 2026-07-28) against the native server,
over stdio and Streamable HTTP.

Its default connect mode probes `server/discover` and falls back to the handshake only when
a server cannot answer it: each connection here must adopt the modern era. Over each
transport it calls every tool of the `default` profile (one case table: a tool listed
without a case fails), reads the graph resource, and listens (`subscriptions/listen`) for a
change: over HTTP one made by a second client, over stdio one made on the same connection.

usage: tests/sdk/py_sdk.py <path to mcp-memory>
Needs `pip install mcp==2.3.0` (tests/sdk/run does it in a virtual environment).
"""

from __future__ import annotations

import asyncio
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from mcp import StdioServerParameters
from mcp.client.client import Client

MODERN = "2026-07-28"
GRAPH_URI = "memory://knowledge-graph"
NOTICE_S = 10

# Every tool of the default profile, with arguments (or a function of the structured results
# so far, by tool); run in this order on a fresh memory.
CASES: list[tuple[str, object]] = [
    ("create_entities", {"entities": [
        {"name": "Ada", "entityType": "person", "observations": ["wrote the first program"]},
        {"name": "Engine", "entityType": "machine", "observations": ["analytical"]},
    ]}),
    ("create_relations", {"relations": [{"from": "Ada", "to": "Engine", "relationType": "programmed"}]}),
    ("add_observations", {"observations": [{"entityName": "Ada", "contents": ["met Babbage"]}]}),
    ("read_graph", {}),
    ("search_nodes", {"query": "Ada"}),
    ("open_nodes", {"names": ["Ada"]}),
    ("search", {"query": "program"}),
    ("delete_observations", {"deletions": [{"entityName": "Ada", "observations": ["met Babbage"]}]}),
    ("history", {"entityName": "Ada"}),
    # Undoes the deletion, as history listed it.
    ("undo", lambda done: {"changeId": next(
        c["id"] for c in done["history"]["changes"]
        if any(op["op"] == "delete_observations" for op in c["ops"]))}),
    ("delete_relations", {"relations": [{"from": "Ada", "to": "Engine", "relationType": "programmed"}]}),
    ("delete_entities", {"entityNames": ["Engine"]}),
]


def check(ok: bool, what: str) -> None:
    if not ok:
        raise AssertionError(what)


async def every_tool(client: Client, where: str) -> None:
    check(client.protocol_version == MODERN, f"{where}: adopted {client.protocol_version}, not {MODERN}")
    info = client.server_info
    check(info is not None and info.name == "mcp-memory", f"{where}: server info {info}")
    listed = [t.name for t in (await client.list_tools()).tools]
    cased = [name for name, _ in CASES]
    check(sorted(listed) == sorted(cased), f"{where}: tools {listed} != cases {cased}")
    done: dict[str, object] = {}
    for name, args in CASES:
        result = await client.call_tool(name, args(done) if callable(args) else args)
        text = " ".join(getattr(c, "text", "") for c in result.content)
        check(not result.is_error, f"{where}: {name} failed: {text}")
        done[name] = result.structured_content
    graph = await client.read_resource(GRAPH_URI)
    text = graph.contents[0].text
    check('"Engine"' not in text and "met Babbage" in text, f"{where}: graph after the cases: {text}")


async def next_update(sub) -> object:
    async for event in sub:
        return event
    raise AssertionError("the listen stream ended without an event")


async def over_stdio(binary: str, tmp: Path) -> None:
    params = StdioServerParameters(command=binary, args=["-f", str(tmp / "stdio.mcpmem")])
    async with Client(params) as client:
        await every_tool(client, "stdio")
        async with client.listen(resource_subscriptions=[GRAPH_URI]) as sub:
            check(list(sub.honored.resource_subscriptions or []) == [GRAPH_URI], f"stdio: honored {sub.honored}")
            await client.call_tool("add_observations", {"observations": [{"entityName": "Ada", "contents": ["listened"]}]})
            event = await asyncio.wait_for(next_update(sub), NOTICE_S)
            check(getattr(event, "uri", None) == GRAPH_URI, f"stdio: event {event}")


async def over_http(binary: str, tmp: Path) -> None:
    server = subprocess.Popen(
        [binary, "-f", str(tmp / "http.mcpmem"), "--transport", "http", "--bind", "127.0.0.1:0"],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )
    try:
        line = server.stderr.readline()
        found = re.search(r"(http://\S+/mcp)", line)
        check(found is not None, f"http: no URL in {line!r}")
        url = found.group(1)
        async with Client(url) as client, Client(url) as other:
            await every_tool(client, "http")
            check(other.protocol_version == MODERN, f"http: second client adopted {other.protocol_version}")
            async with client.listen(resource_subscriptions=[GRAPH_URI]) as sub:
                await other.call_tool("create_entities", {"entities": [
                    {"name": "Grace", "entityType": "person", "observations": []}]})
                event = await asyncio.wait_for(next_update(sub), NOTICE_S)
                check(getattr(event, "uri", None) == GRAPH_URI, f"http: event {event}")
    finally:
        server.terminate()
        server.wait(10)


async def main(binary: str) -> None:
    with tempfile.TemporaryDirectory(prefix="mcp-memory-py-sdk-") as tmp:
        await over_stdio(binary, Path(tmp))
        print("py-sdk stdio: ok")
        await over_http(binary, Path(tmp))
        print("py-sdk http: ok")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    asyncio.run(main(sys.argv[1]))
