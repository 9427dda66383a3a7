//! Frozen file-format fixtures: a log written by format version 1, holding every record
//! variant, must keep opening to the same graph as records evolve. The fixture files are
//! committed and never regenerated; a change that breaks these tests breaks users' files.

mod common;

use std::path::PathBuf;

use common::*;
use mcp_memory_core::frame;
use mcp_memory_core::graph::Graph;
use mcp_memory_core::model::{Access, CoUse, Usage};
use mcp_memory_core::model::{
    Archived, Entity, EntityPatch, EntityState, Fact, NewFact, NewFacts, NewReflection,
    NewRelation, Observations, Provenance, Reflection, Relation, RelationState, Restore,
    SavedSearch, TagAlias, Target,
};
use mcp_memory_core::record::{Agent, OP_NAMES, Op, Record, Stamp};
use mcp_memory_core::{Contents, Server};
use serde_json::Value;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

const LOG: &str = "v1-every-record.mcpmem";
const EXPECTED: &str = "v1-every-record.expected.json";
/// Added with the `Batch` variant (still format version 1: new variants are append-only).
const BATCH_LOG: &str = "v1-batch.mcpmem";
const BATCH_EXPECTED: &str = "v1-batch.expected.json";
/// Added with times, provenance and the richer model: stamped changes holding every op.
const V2_LOG: &str = "v2-every-op.mcpmem";
const V2_EXPECTED: &str = "v2-every-op.expected.json";
/// Added with `Forget`.
const FORGET_LOG: &str = "v2-forget.mcpmem";
const FORGET_EXPECTED: &str = "v2-forget.expected.json";

const RESTORE_LOG: &str = "v2-restore.mcpmem";
const RESTORE_EXPECTED: &str = "v2-restore.expected.json";
/// Added with tag aliases and saved searches.
const SAVED_LOG: &str = "v2-saved.mcpmem";
const SAVED_EXPECTED: &str = "v2-saved.expected.json";
/// Added with the archive.
const ARCHIVE_LOG: &str = "v2-archive.mcpmem";
const ARCHIVE_EXPECTED: &str = "v2-archive.expected.json";

const USAGE_LOG: &str = "v2-usage.mcpmem";
const USAGE_EXPECTED: &str = "v2-usage.expected.json";

/// Which variant of the wire format a record is: a single op of the first format (0–5), a
/// batch (6) or a stamped change (7). Kept in step with `record::Wire` by hand: a new wire
/// variant needs a new fixture file here, never a rewritten one.
fn variant(record: &Record<'_>) -> usize {
    match (&record.stamp, record.ops.as_slice()) {
        (Some(_), _) => 7,
        (None, [op]) if op.index() < 6 => op.index(),
        (None, _) => 6,
    }
}
const VARIANTS: usize = 8;

fn triple<'a>(from: &'a str, to: &'a str, relation_type: &'a str) -> Relation<'a> {
    Relation {
        from,
        to,
        relation_type,
    }
}

/// Every record variant, with Unicode, escapes-to-be and empty strings.
fn every_record() -> Vec<Record<'static>> {
    vec![
        Record::from(Op::CreateEntities(vec![
            Entity {
                name: "Alice",
                entity_type: "person",
                observations: vec!["likes tea", "ΟΔΟΣ 😀"],
            },
            Entity {
                name: "",
                entity_type: "",
                observations: vec![""],
            },
            Entity {
                name: "Bob",
                entity_type: "person",
                observations: vec![],
            },
            Entity {
                name: "İstanbul",
                entity_type: "city",
                observations: vec!["x", "x"],
            },
            Entity {
                name: "Temp",
                entity_type: "t",
                observations: vec!["gone"],
            },
        ])),
        Record::from(Op::CreateRelations(vec![
            triple("Alice", "Bob", "knows"),
            triple("Alice", "", ""),
            triple("Bob", "İstanbul", "lives_in"),
            triple("Ghost", "Alice", "haunts"),
            triple("Temp", "Alice", "r"),
            triple("Alice", "Bob", "likes"),
        ])),
        Record::from(Op::AddObservations(vec![
            Observations {
                entity: "Alice",
                contents: vec!["drinks coffee", "line\nbreak \"quoted\""],
            },
            Observations {
                entity: "Bob",
                contents: vec!["\u{e9}", "e\u{301}"],
            },
        ])),
        Record::from(Op::DeleteEntities(vec!["Temp", "Ghost"])),
        Record::from(Op::DeleteObservations(vec![
            Observations {
                entity: "Alice",
                contents: vec!["likes tea"],
            },
            Observations {
                entity: "İstanbul",
                contents: vec!["x"],
            },
        ])),
        Record::from(Op::DeleteRelations(vec![triple("Alice", "Bob", "likes")])),
    ]
}

/// A merge-shaped batch after plain records: the records of `Batch` fixture.
fn batch_records() -> Vec<Record<'static>> {
    vec![
        Record::from(Op::CreateEntities(vec![
            Entity {
                name: "Alice",
                entity_type: "person",
                observations: vec!["likes tea"],
            },
            Entity {
                name: "alice",
                entity_type: "person",
                observations: vec!["likes tea", "plays chess"],
            },
        ])),
        Record::from(Op::CreateRelations(vec![
            triple("alice", "Bob", "knows"),
            triple("Alice", "alice", "same_as"),
        ])),
        Record {
            stamp: None,
            ops: vec![
                Op::AddObservations(vec![Observations {
                    entity: "Alice",
                    contents: vec!["plays chess"],
                }]),
                Op::CreateRelations(vec![triple("Alice", "Bob", "knows")]),
                Op::DeleteEntities(vec!["alice"]),
            ],
        },
        Record {
            stamp: None,
            ops: vec![],
        },
    ]
}

const T0: u64 = 1_700_000_000_000;

/// Stamped changes holding every op, then a snapshot-shaped batch: the `v2` fixture.
fn v2_records() -> Vec<Record<'static>> {
    let ada = Provenance {
        client: "claude-code",
        version: "2.1.0",
        session: "1700000000000.0",
        actor: Some("ada"),
    };
    let knows = triple("Alice", "Bob", "knows");
    let facts = |entity, facts| NewFacts { entity, facts };
    vec![
        Record {
            stamp: Some(Stamp {
                at: T0,
                by: Agent::New(ada),
            }),
            ops: vec![
                Op::CreateEntities(vec![
                    Entity {
                        name: "Alice",
                        entity_type: "person",
                        observations: vec!["likes tea", "ΟΔΟΣ 😀"],
                    },
                    Entity {
                        name: "Bob",
                        entity_type: "person",
                        observations: vec![],
                    },
                    Entity {
                        name: "Temp",
                        entity_type: "t",
                        observations: vec!["gone"],
                    },
                ]),
                Op::CreateRelationsWith(vec![NewRelation {
                    relation: knows,
                    context: Some("met at work"),
                }]),
                Op::CreateRelations(vec![triple("Bob", "Alice", "knows")]),
            ],
        },
        Record {
            stamp: Some(Stamp {
                at: T0 + 60_000,
                by: Agent::Known(0),
            }),
            ops: vec![
                Op::AddFacts(vec![facts(
                    "Alice",
                    vec![
                        NewFact {
                            text: "likes coffee",
                            kind: Some("preference"),
                            supersedes: 1,
                        },
                        NewFact {
                            text: "plays chess",
                            kind: None,
                            supersedes: 0,
                        },
                    ],
                )]),
                Op::AddObservations(vec![Observations {
                    entity: "Bob",
                    contents: vec!["tall", "short"],
                }]),
                Op::DeleteObservations(vec![Observations {
                    entity: "Bob",
                    contents: vec!["short"],
                }]),
                Op::PatchEntities(vec![EntityPatch {
                    name: "Alice",
                    tags: Some(vec!["friend", "chess"]),
                    importance: Some(Some(7.5)),
                    parent: Some(Some("Bob")),
                    status: Some("archived"),
                }]),
                Op::EndRelations(vec![knows]),
                Op::DeleteRelations(vec![triple("Bob", "Alice", "knows")]),
                Op::DeleteEntities(vec!["Temp"]),
                Op::Reflect(vec![
                    NewReflection {
                        target: Target::Entity("Alice"),
                        author: "claude-code",
                        mood: Some("curious"),
                        content: "Alice's tastes change",
                    },
                    NewReflection {
                        target: Target::Global,
                        author: "ada",
                        mood: None,
                        content: "a small memory",
                    },
                ]),
            ],
        },
        Record {
            stamp: None,
            ops: vec![
                Op::Agents(vec![Provenance {
                    client: "",
                    version: "",
                    session: "s",
                    actor: None,
                }]),
                Op::PutEntities(vec![EntityState {
                    name: "Carol",
                    entity_type: "person",
                    created: T0 - 5,
                    updated: T0 - 1,
                    tags: vec!["new"],
                    importance: None,
                    parent: None,
                    status: None,
                    next_fact: 5,
                    facts: vec![
                        Fact {
                            text: "sings",
                            id: 4,
                            kind: Some("skill"),
                            created: T0 - 1,
                            supersedes: 2,
                            superseded: 0,
                        },
                        Fact {
                            text: "hums",
                            id: 2,
                            kind: None,
                            created: T0 - 5,
                            supersedes: 0,
                            superseded: T0 - 1,
                        },
                    ],
                }]),
                Op::PutRelations(vec![
                    RelationState {
                        relation: triple("Carol", "Alice", "knows"),
                        created: T0 - 3,
                        context: None,
                        ended: 0,
                    },
                    RelationState {
                        relation: triple("Carol", "Bob", "knew"),
                        created: 0,
                        context: Some("school"),
                        ended: T0 - 2,
                    },
                ]),
                Op::PutReflections(vec![Reflection {
                    id: 9,
                    target: Target::Relation(triple("Carol", "Alice", "knows")),
                    author: "ada",
                    mood: None,
                    content: "old friends",
                    created: T0 - 4,
                }]),
            ],
        },
    ]
}

/// A graph with traces of "Gone" everywhere, then a change forgetting it: the `forget`
/// fixture.
fn forget_records() -> Vec<Record<'static>> {
    let by = Agent::New(Provenance {
        client: "c",
        version: "1",
        session: "s",
        actor: None,
    });
    vec![
        Record {
            stamp: Some(Stamp { at: T0, by }),
            ops: vec![
                Op::CreateEntities(vec![
                    Entity {
                        name: "Gone",
                        entity_type: "t",
                        observations: vec!["secret"],
                    },
                    Entity {
                        name: "Kept",
                        entity_type: "t",
                        observations: vec!["stays"],
                    },
                ]),
                Op::PatchEntities(vec![EntityPatch {
                    name: "Kept",
                    parent: Some(Some("Gone")),
                    ..EntityPatch::default()
                }]),
                Op::CreateRelations(vec![triple("Kept", "Gone", "knows")]),
                Op::CreateRelationsWith(vec![NewRelation {
                    relation: triple("Gone", "Kept", "was"),
                    context: Some("c"),
                }]),
                Op::EndRelations(vec![triple("Gone", "Kept", "was")]),
                Op::Reflect(vec![
                    NewReflection {
                        target: Target::Entity("Gone"),
                        author: "c",
                        mood: None,
                        content: "about it",
                    },
                    NewReflection {
                        target: Target::Global,
                        author: "c",
                        mood: None,
                        content: "kept",
                    },
                ]),
            ],
        },
        Record {
            stamp: Some(Stamp {
                at: T0 + 1,
                by: Agent::Known(0),
            }),
            ops: vec![Op::Forget(vec!["Gone"])],
        },
    ]
}

/// A change to an entity and a relation, then a change putting both back as they were
/// (what `undo` logs): the `restore` fixture.
fn restore_records() -> Vec<Record<'static>> {
    let by = Agent::New(Provenance {
        client: "c",
        version: "1",
        session: "s",
        actor: Some("me"),
    });
    let at = |n: u64| {
        Some(Stamp {
            at: T0 + n,
            by: Agent::Known(0),
        })
    };
    let ada = |observations| EntityState {
        name: "Ada",
        entity_type: "person",
        created: T0,
        updated: T0,
        tags: vec![],
        importance: None,
        parent: None,
        status: None,
        next_fact: 2,
        facts: observations,
    };
    let wrote = Fact {
        text: "wrote programs",
        id: 1,
        kind: None,
        created: T0,
        supersedes: 0,
        superseded: 0,
    };
    vec![
        Record {
            stamp: Some(Stamp { at: T0, by }),
            ops: vec![
                Op::CreateEntities(vec![Entity {
                    name: "Ada",
                    entity_type: "person",
                    observations: vec!["wrote programs"],
                }]),
                Op::CreateRelations(vec![triple("Ada", "Babbage", "knows")]),
            ],
        },
        Record {
            stamp: at(1),
            ops: vec![
                Op::AddObservations(vec![Observations {
                    entity: "Ada",
                    contents: vec!["liked poetry"],
                }]),
                Op::EndRelations(vec![triple("Ada", "Babbage", "knows")]),
            ],
        },
        Record {
            stamp: at(2),
            ops: vec![Op::Restore(Restore {
                entities: vec!["Ada"],
                relations: vec![triple("Ada", "Babbage", "knows")],
                put_entities: vec![ada(vec![wrote])],
                put_relations: vec![RelationState {
                    relation: triple("Ada", "Babbage", "knows"),
                    created: T0,
                    context: None,
                    ended: 0,
                }],
            })],
        },
    ]
}

/// Tag aliases and saved searches made, replaced in place, run and removed: the `saved`
/// fixture.
fn saved_records() -> Vec<Record<'static>> {
    let by = Agent::New(Provenance {
        client: "c",
        version: "1",
        session: "s",
        actor: None,
    });
    let at = |n: u64| {
        Some(Stamp {
            at: T0 + n,
            by: Agent::Known(0),
        })
    };
    let alias = |alias, canonical, description, n| TagAlias {
        alias,
        canonical,
        description,
        created: T0 + n,
    };
    let search = |name, query, use_count, last_used| SavedSearch {
        name,
        description: Some("work people"),
        query,
        tags: vec!["work", "ml"],
        min_importance: Some(2.5),
        max_importance: None,
        entity_type: Some("person"),
        created: T0,
        use_count,
        last_used,
    };
    vec![
        Record {
            stamp: Some(Stamp { at: T0, by }),
            ops: vec![
                Op::PutTagAliases(vec![
                    alias("ml", "machine-learning", None, 0),
                    alias("ai", "artificial-intelligence", Some("short"), 0),
                    alias("js", "javascript", None, 0),
                ]),
                Op::PutSavedSearches(vec![
                    search("colleagues", "engineer", 0, 0),
                    search("gone", "x", 0, 0),
                ]),
            ],
        },
        Record {
            stamp: at(1),
            ops: vec![
                Op::PutTagAliases(vec![alias("ml", "ml-ops", Some("changed"), 1)]),
                Op::RemoveTagAliases(vec!["ai", "never-made"]),
                Op::PutSavedSearches(vec![search("colleagues", "engineer", 1, T0 + 1)]),
                Op::RemoveSavedSearches(vec!["gone"]),
            ],
        },
    ]
}

/// Two entities archived with their relation (as `archive_entities` logs it), then one
/// restored (as `restore_archived` does): the `archive` fixture.
fn archive_records() -> Vec<Record<'static>> {
    let by = Agent::New(Provenance {
        client: "c",
        version: "1",
        session: "s",
        actor: None,
    });
    let at = |n: u64| {
        Some(Stamp {
            at: T0 + n,
            by: Agent::Known(0),
        })
    };
    let state = |name, tags| EntityState {
        name,
        entity_type: "note",
        created: T0,
        updated: T0,
        tags,
        importance: Some(1.5),
        parent: None,
        status: None,
        next_fact: 2,
        facts: vec![Fact {
            text: "old",
            id: 1,
            kind: None,
            created: T0,
            supersedes: 0,
            superseded: 0,
        }],
    };
    let linked = RelationState {
        relation: triple("A", "B", "next"),
        created: T0,
        context: Some("then"),
        ended: 0,
    };
    vec![
        Record {
            stamp: Some(Stamp { at: T0, by }),
            ops: vec![
                Op::PutEntities(vec![state("A", vec!["draft"]), state("B", vec![])]),
                Op::PutRelations(vec![linked]),
            ],
        },
        Record {
            stamp: at(1),
            ops: vec![
                Op::PutArchived(vec![
                    Archived {
                        entity: state("A", vec!["draft"]),
                        relations: vec![linked],
                        at: T0 + 1,
                    },
                    Archived {
                        entity: state("B", vec![]),
                        relations: vec![linked],
                        at: T0 + 1,
                    },
                ]),
                Op::Restore(Restore {
                    entities: vec!["A", "B"],
                    relations: vec![triple("A", "B", "next")],
                    put_entities: vec![],
                    put_relations: vec![],
                }),
            ],
        },
        Record {
            stamp: at(2),
            ops: vec![
                Op::Restore(Restore {
                    entities: vec![],
                    relations: vec![],
                    put_entities: vec![state("A", vec!["draft"])],
                    put_relations: vec![linked],
                }),
                Op::RemoveArchived(vec!["A", "never-archived"]),
            ],
        },
    ]
}

/// Uses of three entities (and of a name no entity has), added to, then one entity deleted
/// (its counts and pairs go): the `usage` fixture.
fn usage_records() -> Vec<Record<'static>> {
    let day = (T0 / 86_400_000) as u32;
    let access = |entity, day, count, last| Access {
        entity,
        day,
        count,
        last,
    };
    let pair = |a, b, count, last| CoUse { a, b, count, last };
    vec![
        Record {
            stamp: Some(Stamp {
                at: T0,
                by: Agent::New(Provenance::default()),
            }),
            ops: vec![Op::CreateEntities(vec![
                Entity {
                    name: "A",
                    entity_type: "t",
                    observations: vec![],
                },
                Entity {
                    name: "B",
                    entity_type: "t",
                    observations: vec![],
                },
                Entity {
                    name: "C",
                    entity_type: "t",
                    observations: vec![],
                },
            ])],
        },
        Record::from(Op::Used(Usage {
            accesses: vec![
                access("A", day, 2, T0 + 5),
                access("B", day, 1, T0 + 5),
                access("C", day, 1, T0 + 6),
                access("nobody", day, 9, T0 + 6),
            ],
            pairs: vec![
                pair("A", "B", 1, T0 + 5),
                pair("A", "C", 1, T0 + 6),
                pair("A", "nobody", 1, T0 + 6),
            ],
        })),
        Record::from(Op::Used(Usage {
            accesses: vec![
                access("A", day, 1, T0 + 7),
                access("A", day + 1, 3, T0 + 86_400_000),
            ],
            pairs: vec![pair("A", "B", 2, T0 + 7)],
        })),
        Record {
            stamp: Some(Stamp {
                at: T0 + 86_400_001,
                by: Agent::Known(0),
            }),
            ops: vec![Op::DeleteEntities(vec!["C"])],
        },
    ]
}

/// Writes the `usage` fixture (once, like the others).
#[test]
#[ignore = "writes the frozen fixture files; run once per new variant, never again"]
fn write_usage_fixture() {
    write_state_fixture(USAGE_LOG, USAGE_EXPECTED, &usage_records());
}

/// The frozen `usage` log replays to its expected counts (added up, a name no entity has
/// passed by, a deleted entity's counts and pairs gone), re-encodes to its bytes, and its
/// snapshot restates the same counts.
#[test]
fn usage_log_replays_to_expected_counts_and_snapshots_to_them() {
    let (graph, state) = frozen_state(USAGE_LOG, USAGE_EXPECTED, &usage_records());
    let a = graph.usage(graph.strings().lookup("A").unwrap()).unwrap();
    assert_eq!(a.count(), 6);
    assert_eq!(a.days.len(), 2);
    assert_eq!(
        a.with(graph.strings().lookup("B").unwrap()).map(|w| w.0),
        Some(3)
    );
    assert_eq!(
        a.with.len(),
        1,
        "C's pair went with C; nobody's was never counted"
    );
    assert_eq!(state["usage"]["pairs"].as_array().unwrap().len(), 1);
    assert_eq!(state_of(&replayed_graph(&graph.snapshot())), state);
    let mut checkpointed = Graph::default();
    checkpointed.apply_entry(0, &graph.checkpoint()).unwrap();
    assert_eq!(
        state_of(&checkpointed),
        state,
        "a checkpoint restates the counts"
    );
}

/// Writes the `archive` fixture (once, like the others).
#[test]
#[ignore = "writes the frozen fixture files; run once per new variant, never again"]
fn write_archive_fixture() {
    write_state_fixture(ARCHIVE_LOG, ARCHIVE_EXPECTED, &archive_records());
}

/// The frozen `archive` log replays to its expected state (A back with its relation, B
/// still archived), re-encodes to its bytes, and its snapshot replays to the same state.
#[test]
fn archive_log_replays_to_expected_state_and_snapshots_to_it() {
    let (graph, state) = frozen_state(ARCHIVE_LOG, ARCHIVE_EXPECTED, &archive_records());
    assert_eq!(state["entities"].as_array().unwrap().len(), 1);
    assert_eq!(state["relations"][0]["context"], "then");
    let archived: Vec<&str> = state["archived"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["entity"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(archived, ["B"]);
    assert_eq!(state_of(&replayed_graph(&graph.snapshot())), state);
}

/// Writes the `saved` fixture (once, like the others).
#[test]
#[ignore = "writes the frozen fixture files; run once per new variant, never again"]
fn write_saved_fixture() {
    write_state_fixture(SAVED_LOG, SAVED_EXPECTED, &saved_records());
}

/// The frozen `saved` log replays to its expected state (a replaced alias or search keeps
/// its place), re-encodes to its bytes, and its snapshot replays to the same state.
#[test]
fn saved_log_replays_to_expected_state_and_snapshots_to_it() {
    let (graph, state) = frozen_state(SAVED_LOG, SAVED_EXPECTED, &saved_records());
    let aliases: Vec<&str> = state["tag_aliases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["canonical"].as_str().unwrap())
        .collect();
    assert_eq!(aliases, ["ml-ops", "javascript"]);
    assert_eq!(state["saved_searches"][0]["use_count"], 1);
    assert_eq!(state["saved_searches"].as_array().unwrap().len(), 1);
    assert_eq!(state_of(&replayed_graph(&graph.snapshot())), state);
}

/// Writes the `restore` fixture (once, like the others).
#[test]
#[ignore = "writes the frozen fixture files; run once per new variant, never again"]
fn write_restore_fixture() {
    write_state_fixture(RESTORE_LOG, RESTORE_EXPECTED, &restore_records());
}

/// The frozen `restore` log replays to its expected state: the entity and the relation as
/// they were before the change the restore undid.
#[test]
fn restore_log_replays_to_expected_state() {
    let bytes = std::fs::read(fixture(RESTORE_LOG)).expect("the committed restore fixture");
    let scan = frame::scan(&bytes).unwrap();
    for (payload, written) in scan.records.iter().zip(&restore_records()) {
        let decoded = Record::decode(payload).expect("decodes");
        assert_eq!(&decoded, written);
        assert_eq!(decoded.encode(), *payload);
    }
    let payloads: Vec<Vec<u8>> = scan.records.iter().map(|r| r.to_vec()).collect();
    let state = state_of(&replayed_graph(&payloads));
    let text = std::fs::read_to_string(fixture(RESTORE_EXPECTED)).unwrap();
    assert_eq!(state, serde_json::from_str::<Value>(&text).unwrap());
    let before = state_of(&replayed_graph(&payloads[..1]));
    assert_eq!(state["entities"], before["entities"]);
    assert_eq!(state["relations"], before["relations"]);
}

/// Writes the `forget` fixture (once, like the others).
#[test]
#[ignore = "writes the frozen fixture files; run once per new variant, never again"]
fn write_forget_fixture() {
    write_state_fixture(FORGET_LOG, FORGET_EXPECTED, &forget_records());
}

/// The frozen `forget` log replays to its expected state: no trace of what it forgot.
#[test]
fn forget_log_replays_to_expected_state() {
    let bytes = std::fs::read(fixture(FORGET_LOG)).expect("the committed forget fixture");
    let scan = frame::scan(&bytes).unwrap();
    for (payload, written) in scan.records.iter().zip(&forget_records()) {
        assert_eq!(&Record::decode(payload).expect("decodes"), written);
    }
    let payloads: Vec<Vec<u8>> = scan.records.iter().map(|r| r.to_vec()).collect();
    let state = state_of(&replayed_graph(&payloads));
    let text = std::fs::read_to_string(fixture(FORGET_EXPECTED)).unwrap();
    assert_eq!(state, serde_json::from_str::<Value>(&text).unwrap());
    assert!(!state.to_string().contains("Gone"), "{state}");
}

/// The graph the frozen log `log` replays to and its state, after checking that the log
/// holds `records` (byte for byte, re-encoded) and that the state is the frozen `expected`.
fn frozen_state(log: &str, expected: &str, records: &[Record<'_>]) -> (Graph, Value) {
    let bytes = std::fs::read(fixture(log)).expect("the committed fixture");
    let scan = frame::scan(&bytes).unwrap();
    assert_eq!(scan.records.len(), records.len());
    for (payload, written) in scan.records.iter().zip(records) {
        let decoded = Record::decode(payload).expect("decodes");
        assert_eq!(&decoded, written);
        assert_eq!(decoded.encode(), *payload);
    }
    let payloads: Vec<Vec<u8>> = scan.records.iter().map(|r| r.to_vec()).collect();
    let graph = replayed_graph(&payloads);
    let state = state_of(&graph);
    let text = std::fs::read_to_string(fixture(expected)).unwrap();
    assert_eq!(state, serde_json::from_str::<Value>(&text).unwrap());
    (graph, state)
}

/// Writes a frozen log of `records` and the whole state it replays to, refusing to
/// overwrite.
fn write_state_fixture(log: &str, expected: &str, records: &[Record<'_>]) {
    let (log_path, expected_path) = (fixture(log), fixture(expected));
    assert!(
        !log_path.exists() && !expected_path.exists(),
        "{log} exists and must never be regenerated"
    );
    let payloads: Vec<Vec<u8>> = records.iter().map(Record::encode).collect();
    let state = state_of(&replayed_graph(&payloads));
    std::fs::write(
        &log_path,
        frame::encode_log(payloads.iter().map(Vec::as_slice)),
    )
    .unwrap();
    std::fs::write(
        &expected_path,
        serde_json::to_string_pretty(&state).unwrap() + "\n",
    )
    .unwrap();
}

/// The whole of a graph as JSON: the table of agents, entities, relations (holding, then
/// ended) and reflections in full.
fn state_of(graph: &Graph) -> Value {
    serde_json::to_value(graph.state()).expect("states serialize")
}

/// The graph these payloads replay to.
fn replayed_graph(payloads: &[Vec<u8>]) -> Graph {
    let mut graph = Graph::default();
    for p in payloads {
        graph.apply(&Record::decode(p).expect("decodes"), &mut ());
    }
    graph
}

/// Writes the `v2` fixture (once, like the others): the log and the whole state it
/// replays to.
#[test]
#[ignore = "writes the frozen fixture files; run once per format version, never again"]
fn write_v2_fixture() {
    write_state_fixture(V2_LOG, V2_EXPECTED, &v2_records());
}

/// The frozen v2 log holds every op, replays to its expected state, re-encodes to its
/// bytes, and its snapshot (what compaction writes) replays to the same state.
#[test]
fn v2_log_holds_every_op_replays_to_expected_state_and_snapshots_to_it() {
    let bytes = std::fs::read(fixture(V2_LOG)).expect("the committed v2 fixture");
    let scan = frame::scan(&bytes).unwrap();
    assert_eq!(scan.torn, None);
    let mut ops = std::collections::BTreeSet::new();
    for (payload, written) in scan.records.iter().zip(&v2_records()) {
        let decoded = Record::decode(payload).expect("decodes");
        assert_eq!(&decoded, written);
        assert_eq!(decoded.encode(), *payload);
        ops.extend(decoded.ops.iter().map(Op::index));
    }
    ops.extend(
        forget_records()
            .iter()
            .chain(&restore_records())
            .chain(&saved_records())
            .chain(&archive_records())
            .chain(&usage_records())
            .flat_map(|r| r.ops.iter().map(Op::index)),
    );
    let every: std::collections::BTreeSet<usize> = (0..OP_NAMES.len())
        .filter(|&i| OP_NAMES[i] != "reserved")
        .collect();
    assert_eq!(ops, every, "the v2 fixtures hold every op");
    let payloads: Vec<Vec<u8>> = scan.records.iter().map(|r| r.to_vec()).collect();
    let graph = replayed_graph(&payloads);
    let text = std::fs::read_to_string(fixture(V2_EXPECTED)).unwrap();
    let expected: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(state_of(&graph), expected);
    assert_eq!(state_of(&replayed_graph(&graph.snapshot())), expected);
}

/// Writes a frozen log of `records` and the graph it replays to, refusing to overwrite.
fn write_fixture(log: &str, expected: &str, records: &[Record<'_>]) {
    let (log_path, expected_path) = (fixture(log), fixture(expected));
    assert!(
        !log_path.exists() && !expected_path.exists(),
        "{log} exists and must never be regenerated"
    );
    let payloads: Vec<Vec<u8>> = records.iter().map(Record::encode).collect();
    let bytes = frame::encode_log(payloads.iter().map(Vec::as_slice));
    let mut memory = open(MemLog::holding(Contents::Records(payloads)));
    let graph = serde_json::to_string_pretty(&graph(&mut memory)).unwrap() + "\n";
    std::fs::create_dir_all(log_path.parent().unwrap()).unwrap();
    std::fs::write(&log_path, bytes).unwrap();
    std::fs::write(&expected_path, graph).unwrap();
}

/// Writes the fixture files. Run once when a format version is introduced; the files are
/// then committed and never written again (this refuses to overwrite them).
#[test]
#[ignore = "writes the frozen fixture files; run once per format version, never again"]
fn write_v1_fixture() {
    write_fixture(LOG, EXPECTED, &every_record());
}

/// Writes the `Batch` fixture (once, like the v1 one).
#[test]
#[ignore = "writes the frozen fixture files; run once per new variant, never again"]
fn write_v1_batch_fixture() {
    write_fixture(BATCH_LOG, BATCH_EXPECTED, &batch_records());
}

/// A frozen batch log replays to its expected graph and its records re-encode to their bytes.
#[test]
fn v1_batch_log_replays_to_expected_graph_and_reencodes_identically() {
    let bytes = std::fs::read(fixture(BATCH_LOG)).expect("the committed batch fixture");
    let scan = frame::scan(&bytes).unwrap();
    assert_eq!(scan.torn, None);
    for (payload, written) in scan.records.iter().zip(&batch_records()) {
        let decoded = Record::decode(payload).expect("decodes");
        assert_eq!(&decoded, written);
        assert_eq!(decoded.encode(), *payload);
    }
    let records = scan.records.iter().map(|r| r.to_vec()).collect();
    let mut memory = open(MemLog::holding(Contents::Records(records)));
    let text = std::fs::read_to_string(fixture(BATCH_EXPECTED)).unwrap();
    let expected: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(graph(&mut memory), expected);
}

fn read_fixture() -> Vec<u8> {
    std::fs::read(fixture(LOG)).expect("the committed v1 fixture")
}

fn expected_graph() -> Value {
    let text = std::fs::read_to_string(fixture(EXPECTED)).expect("the committed expected graph");
    serde_json::from_str(&text).expect("expected graph is JSON")
}

#[test]
fn v1_log_scans_cleanly_and_holds_every_variant() {
    let bytes = read_fixture();
    assert!(frame::is_log(&bytes));
    let scan = frame::scan(&bytes).expect("a v1 log scans");
    assert_eq!(scan.torn, None);
    assert_eq!(scan.valid_len, bytes.len());
    let batch = std::fs::read(fixture(BATCH_LOG)).expect("the committed batch fixture");
    let batch = frame::scan(&batch).expect("a v1 log scans");
    let v2 = std::fs::read(fixture(V2_LOG)).expect("the committed v2 fixture");
    let v2 = frame::scan(&v2).expect("a v2 log scans");
    let seen: std::collections::BTreeSet<usize> = scan
        .records
        .iter()
        .chain(&batch.records)
        .chain(&v2.records)
        .map(|r| variant(&Record::decode(r).expect("a v1 record decodes")))
        .collect();
    assert_eq!(seen.len(), VARIANTS, "the fixtures hold every variant");
}

#[test]
fn v1_log_replays_to_expected_graph() {
    let bytes = read_fixture();
    let scan = frame::scan(&bytes).unwrap();
    let records = scan.records.iter().map(|r| r.to_vec()).collect();
    let log = MemLog::holding(Contents::Records(records));
    let (mut memory, warnings) = Server::open(log).expect("a v1 log opens");
    assert!(warnings.is_empty(), "{warnings:?}");
    let expected = expected_graph();
    assert_eq!(graph(&mut memory), expected);
    assert_eq!(
        String::from_utf8(memory.memory_mut().export_jsonl().unwrap()).unwrap(),
        String::from_utf8(reference_jsonl(&expected)).unwrap()
    );
}

/// A v1 record decodes to the value it was written from and re-encodes to the same bytes,
/// so rewriting a log (compaction, conversion) never changes what old readers see.
#[test]
fn v1_records_decode_and_reencode_byte_identically() {
    let bytes = read_fixture();
    let scan = frame::scan(&bytes).unwrap();
    let records = every_record();
    assert_eq!(scan.records.len(), records.len());
    for (i, (payload, written)) in scan.records.iter().zip(&records).enumerate() {
        let decoded = Record::decode(payload).expect("decodes");
        assert_eq!(&decoded, written, "record {i}");
        assert_eq!(
            decoded.encode(),
            *payload,
            "record {i} re-encodes to its bytes"
        );
    }
}

/// The same log, cut at every byte after the header, replays to the expected graph of some
/// prefix of its records and never reports corruption.
#[test]
fn v1_log_cut_anywhere_is_a_torn_tail_not_corruption() {
    let bytes = read_fixture();
    let mut last = 0;
    for cut in frame::HEADER_LEN..=bytes.len() {
        let scan = frame::scan(&bytes[..cut]).unwrap_or_else(|e| panic!("cut at {cut}: {e}"));
        assert!(scan.records.len() >= last, "records only grow with the cut");
        last = scan.records.len();
        assert_eq!(scan.torn.is_none(), scan.valid_len == cut);
    }
    assert_eq!(last, every_record().len());
}

/// A record this version does not know (from a newer mcp-memory) stops the open with its
/// position instead of being skipped or guessed at.
#[test]
fn record_from_a_newer_version_is_refused_with_its_index() {
    let known = Record::from(Op::DeleteEntities(vec!["A"])).encode();
    let newer = vec![200u8, 1, 0];
    let log = MemLog::holding(Contents::Records(vec![known, newer]));
    match Server::open(log) {
        Err(mcp_memory_core::OpenError::Record { index, .. }) => assert_eq!(index, 1),
        Err(other) => panic!("wrong error: {other}"),
        Ok(_) => panic!("a log with an unknown record opened"),
    }
}
