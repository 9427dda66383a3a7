//! Structured MCP messages from fuzz bytes: tool calls that pass the schema checks most of
//! the time (so the fuzzer reaches the tools), with names from a small pool (so calls meet
//! the entities earlier calls made) and, now and then, a wrong type or a missing key.

use libfuzzer_sys::arbitrary::{Result, Unstructured};
use serde_json::{Map, Value, json};

/// Every tool the core runs (every surface's, so a new tool is fuzzed from the day it is
/// added), and one that does not exist.
fn tool_names() -> Vec<&'static str> {
    let table = mcp_memory_core::tools::all().map(|t| t.def.name);
    table.chain(["no_such_tool"]).collect()
}

/// Whether the tool may change the log (a write or compact in the core's table; a read
/// cannot: it returns no change to log).
pub fn mutating(tool: &str) -> bool {
    mcp_memory_core::tools::all().any(|t| t.def.name == tool && t.def.run.mutates())
}

/// Strings that collide on purpose: case and JavaScript-lowercase edge cases (final sigma,
/// dotted I, Kelvin sign, ß), combining marks, emoji, controls, query syntax.
pub const POOL: [&str; 32] = [
    "a",
    "b",
    "c",
    "A",
    "Alice",
    "alice",
    "Bob",
    "person",
    "knows",
    "",
    " ",
    "ΣΑΣ",
    "σας",
    "İstanbul",
    "i̇",
    "ß",
    "SS",
    "\u{212A}elvin",
    "kelvin",
    "café",
    "cafe\u{301}",
    "😀",
    "a\nb",
    "\u{0}",
    "\"quoted\"",
    "name:alice OR -bob",
    "tea AND \"plays chess\"",
    "Ǆ",
    "ǆ",
    "\u{1E9E}",
    "ﬃ",
    "aaa",
];

/// A string: mostly from [`POOL`], sometimes fuzz text, rarely over the name limit.
pub fn string(u: &mut Unstructured<'_>) -> Result<String> {
    Ok(match u.int_in_range(0u8..=15)? {
        0..=10 => (*u.choose(&POOL)?).to_string(),
        11 => format!("{}{}", u.choose(&POOL)?, u.choose(&POOL)?),
        12 => "x".repeat(1025),
        _ => {
            let len = u.int_in_range(0usize..=24)?;
            String::from_utf8_lossy(u.bytes(len.min(u.len()))?).into_owned()
        }
    })
}

fn strings(u: &mut Unstructured<'_>, max: usize) -> Result<Vec<Value>> {
    let n = u.int_in_range(0..=max)?;
    (0..n).map(|_| string(u).map(Value::String)).collect()
}

/// An integer argument: boundaries, small values, and the wrong kinds of number.
fn integer(u: &mut Unstructured<'_>) -> Result<Value> {
    Ok(match u.int_in_range(0u8..=11)? {
        0 => json!(-1),
        1 => json!(0),
        2 => json!(1),
        3 => json!(2),
        4 => json!(3),
        5 => json!(10),
        6 => json!(16),
        7 => json!(17),
        8 => json!(100),
        9 => json!(1.5),
        10 => json!(u64::MAX),
        _ => json!(u.int_in_range(0u32..=2000)?),
    })
}

fn entity(u: &mut Unstructured<'_>) -> Result<Value> {
    Ok(json!({"name": string(u)?, "entityType": string(u)?, "observations": strings(u, 3)?}))
}

fn relation(u: &mut Unstructured<'_>) -> Result<Value> {
    Ok(json!({"from": string(u)?, "to": string(u)?, "relationType": string(u)?}))
}

fn list(
    u: &mut Unstructured<'_>,
    max: usize,
    item: fn(&mut Unstructured<'_>) -> Result<Value>,
) -> Result<Value> {
    let n = u.int_in_range(0..=max)?;
    Ok(Value::Array(
        (0..n).map(|_| item(u)).collect::<Result<_>>()?,
    ))
}

/// Adds some of these optional arguments.
fn optional(
    u: &mut Unstructured<'_>,
    args: &mut Map<String, Value>,
    keys: &[(&str, Kind)],
) -> Result<()> {
    for (key, kind) in keys {
        if u.ratio(1u8, 3)? {
            let v = match kind {
                Kind::Str => Value::String(string(u)?),
                Kind::Int => integer(u)?,
                Kind::Bool => Value::Bool(u.arbitrary()?),
                Kind::Direction => json!(*u.choose(&["out", "in", "both", "up"])?),
                Kind::Cursor => json!(format!("offset:{}", u.int_in_range(0u16..=20)?)),
            };
            args.insert((*key).to_string(), v);
        }
    }
    Ok(())
}

#[derive(Clone, Copy)]
enum Kind {
    Str,
    Int,
    Bool,
    Direction,
    Cursor,
}

const VIEW: [(&str, Kind); 7] = [
    ("entityType", Kind::Str),
    ("offset", Kind::Int),
    ("limit", Kind::Int),
    ("maxTokens", Kind::Int),
    ("cursor", Kind::Cursor),
    ("cursor", Kind::Str),
    ("outline", Kind::Bool),
];

/// Arguments for `tool`, valid for its schema most of the time.
pub fn arguments(u: &mut Unstructured<'_>, tool: &str) -> Result<Value> {
    let mut a = Map::new();
    match tool {
        "create_entities" | "upsert_entities" => {
            a.insert("entities".into(), list(u, 4, entity)?);
        }
        "create_relations" | "delete_relations" => {
            a.insert("relations".into(), list(u, 4, relation)?);
        }
        "add_observations" => {
            a.insert(
                "observations".into(),
                list(u, 3, |u| {
                    Ok(json!({"entityName": string(u)?, "contents": strings(u, 3)?}))
                })?,
            );
        }
        "delete_observations" => {
            a.insert(
                "deletions".into(),
                list(u, 3, |u| {
                    Ok(json!({"entityName": string(u)?, "observations": strings(u, 3)?}))
                })?,
            );
        }
        "delete_entities" => {
            a.insert("entityNames".into(), Value::Array(strings(u, 4)?));
        }
        "read_graph" => optional(u, &mut a, &VIEW)?,
        "search_nodes" => {
            a.insert("query".into(), Value::String(string(u)?));
            optional(u, &mut a, &VIEW)?;
        }
        "open_nodes" | "batch_get_entities" => {
            a.insert("names".into(), Value::Array(strings(u, 4)?));
            if tool == "open_nodes" {
                optional(u, &mut a, &VIEW)?;
            }
        }
        "get_entity" | "entity_exists" | "describe_entity" => {
            a.insert("name".into(), Value::String(string(u)?));
        }
        "search_relations" => optional(
            u,
            &mut a,
            &[
                ("from", Kind::Str),
                ("to", Kind::Str),
                ("relationType", Kind::Str),
                ("limit", Kind::Int),
                ("offset", Kind::Int),
            ],
        )?,
        "degree" => {
            a.insert("name".into(), Value::String(string(u)?));
            optional(u, &mut a, &[("direction", Kind::Direction)])?;
        }
        "find_path" | "find_all_paths" => {
            a.insert("from".into(), Value::String(string(u)?));
            a.insert("to".into(), Value::String(string(u)?));
            optional(
                u,
                &mut a,
                &[("maxDepth", Kind::Int), ("maxPaths", Kind::Int)],
            )?;
        }
        "extract_subgraph" => {
            a.insert("names".into(), Value::Array(strings(u, 4)?));
            optional(
                u,
                &mut a,
                &[("depth", Kind::Int), ("maxEntities", Kind::Int)],
            )?;
        }
        "get_neighbors" => {
            a.insert("name".into(), Value::String(string(u)?));
            optional(
                u,
                &mut a,
                &[
                    ("direction", Kind::Direction),
                    ("relationType", Kind::Str),
                    ("depth", Kind::Int),
                ],
            )?;
        }
        "export_graph" => {
            a.insert(
                "format".into(),
                json!(*u.choose(&["json", "mermaid", "dot", "svg"])?),
            );
            optional(u, &mut a, &[("entityType", Kind::Str)])?;
        }
        "search" => {
            a.insert("query".into(), Value::String(string(u)?));
            optional(
                u,
                &mut a,
                &[
                    ("entityType", Kind::Str),
                    ("limit", Kind::Int),
                    ("offset", Kind::Int),
                ],
            )?;
        }
        "merge_entities" => {
            a.insert("source".into(), Value::String(string(u)?));
            a.insert("target".into(), Value::String(string(u)?));
        }
        _ => {}
    }
    // Now and then, break the arguments: a wrong type, a missing key, an unknown key.
    if u.ratio(1u8, 12)? {
        match u.int_in_range(0u8..=3)? {
            0 => {
                if let Some(k) = a.keys().next().cloned() {
                    a.remove(&k);
                }
            }
            1 => {
                if let Some(v) = a.values_mut().next() {
                    *v = json!(*u.choose(&[
                        json!(null),
                        json!(1),
                        json!("s"),
                        json!([1]),
                        json!({}),
                        json!(true)
                    ])?);
                }
            }
            2 => {
                a.insert("unknownKey".into(), json!([1, "two"]));
            }
            _ => {
                return Ok(json!(*u.choose(&[
                    json!(null),
                    json!([]),
                    json!("args"),
                    json!(7)
                ])?));
            }
        }
    }
    Ok(Value::Object(a))
}

/// A request id: integers (some written as floats), strings.
pub fn id(u: &mut Unstructured<'_>, n: u64) -> Result<Value> {
    Ok(match u.int_in_range(0u8..=5)? {
        0 => json!(format!("r{n}")),
        1 => json!(-(n as i64)),
        2 => json!(n as f64),
        3 => json!(""),
        _ => json!(n),
    })
}

/// A protocol message other than tools/call, as one line.
pub fn protocol_line(u: &mut Unstructured<'_>, n: u64) -> Result<String> {
    let id = id(u, n)?;
    let uri = if u.ratio(3u8, 4)? {
        "memory://knowledge-graph"
    } else {
        "memory://other"
    };
    let msg = match u.int_in_range(0u8..=13)? {
        0 => json!({"jsonrpc": "2.0", "id": id, "method": "initialize", "params": {
            "protocolVersion": *u.choose(&["2025-11-25", "2024-11-05", "1999-01-01"])?,
            "capabilities": {}, "clientInfo": {"name": "fuzz", "version": "1"}}}),
        1 => {
            json!({"jsonrpc": "2.0", "id": id, "method": "initialize", "params": {"protocolVersion": 3}})
        }
        2 => json!({"jsonrpc": "2.0", "id": id, "method": "ping"}),
        3 => json!({"jsonrpc": "2.0", "id": id, "method": "tools/list"}),
        4 => json!({"jsonrpc": "2.0", "id": id, "method": "resources/list"}),
        5 => json!({"jsonrpc": "2.0", "id": id, "method": "resources/templates/list"}),
        6 => {
            json!({"jsonrpc": "2.0", "id": id, "method": "resources/read", "params": {"uri": uri}})
        }
        7 | 8 => {
            json!({"jsonrpc": "2.0", "id": id, "method": "resources/subscribe", "params": {"uri": uri}})
        }
        9 => {
            json!({"jsonrpc": "2.0", "id": id, "method": "resources/unsubscribe", "params": {"uri": uri}})
        }
        10 => json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        11 => json!({"jsonrpc": "2.0", "id": id, "result": {}}),
        12 => json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": 5}}),
        _ => json!({"jsonrpc": "2.0", "id": id, "method": "no/such/method"}),
    };
    Ok(msg.to_string())
}

/// A tools/call line.
pub fn tool_call_line(u: &mut Unstructured<'_>, n: u64) -> Result<(String, &'static str)> {
    let tool = *u.choose(&tool_names())?;
    let args = arguments(u, tool)?;
    let id = id(u, n)?;
    let msg = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                     "params": {"name": tool, "arguments": args}});
    Ok((msg.to_string(), tool))
}

/// A record another writer appends: a valid one from pool names most of the time, else
/// fuzz bytes (which a memory must refuse without applying anything after them).
pub fn record(u: &mut Unstructured<'_>) -> Result<Vec<u8>> {
    use mcp_memory_core::model::{
        Entity, EntityPatch, NewFact, NewFacts, NewReflection, Observations, Provenance, Relation,
        Target,
    };
    use mcp_memory_core::record::{Agent, Op, Record, Stamp};
    let s: Vec<String> = (0..4).map(|_| string(u)).collect::<Result<_>>()?;
    let triple = Relation {
        from: &s[0],
        to: &s[1],
        relation_type: &s[2],
    };
    let obs = Observations {
        entity: &s[0],
        contents: vec![&s[3]],
    };
    let entity = Entity {
        name: &s[0],
        entity_type: &s[1],
        observations: vec![&s[2], &s[3]],
    };
    let agent = match u.int_in_range(0u8..=2)? {
        0 => Agent::Known(u.int_in_range(0u32..=3)?),
        _ => Agent::New(Provenance {
            client: &s[1],
            ..Provenance::default()
        }),
    };
    let stamp = Stamp {
        at: u.arbitrary()?,
        by: agent,
    };
    let facts = NewFacts {
        entity: &s[0],
        facts: vec![NewFact {
            text: &s[3],
            kind: Some(&s[2]),
            supersedes: u.int_in_range(0u32..=3)?,
        }],
    };
    let patch = EntityPatch {
        name: &s[0],
        tags: Some(vec![&s[1]]),
        importance: Some(Some(5.0)),
        parent: Some(Some(&s[1])),
        status: Some(&s[2]),
    };
    let reflection = NewReflection {
        target: Target::Entity(&s[0]),
        author: &s[1],
        mood: None,
        content: &s[3],
    };
    Ok(match u.int_in_range(0u8..=9)? {
        0 => Record::from(Op::CreateEntities(vec![entity])).encode(),
        1 => Record::from(Op::CreateRelations(vec![triple])).encode(),
        2 => Record::from(Op::AddObservations(vec![obs])).encode(),
        3 => Record::from(Op::DeleteEntities(vec![&s[0]])).encode(),
        4 => Record::from(Op::DeleteObservations(vec![obs])).encode(),
        5 => Record::from(Op::DeleteRelations(vec![triple])).encode(),
        6 => Record {
            stamp: None,
            ops: vec![
                Op::CreateEntities(vec![entity]),
                Op::AddObservations(vec![obs]),
            ],
        }
        .encode(),
        7 => Record {
            stamp: Some(stamp),
            ops: vec![
                Op::AddFacts(vec![facts]),
                Op::PatchEntities(vec![patch]),
                Op::EndRelations(vec![triple]),
                Op::Reflect(vec![reflection]),
            ],
        }
        .encode(),
        _ => {
            let len = u.int_in_range(0usize..=16)?;
            u.bytes(len.min(u.len()))?.to_vec()
        }
    })
}
