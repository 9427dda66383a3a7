//! The seed systems' SQLite memories, read so they can be imported: the Rust `mcp-memory`
//! 3.x database (tables `entity`, `observation`, `relation`, `type_dict`) and the Python
//! "MCP Memory v2" database (`entities`, `observations`, `relations`, `reflections`). The
//! rows become the core's model shapes and the core's records (a memory log file the
//! component imports); the database is only read. Embeddings, access statistics and search
//! logs are not memory and are skipped, with a note.

use std::collections::HashMap;
use std::path::Path;

use anyhow::{Context, Result, bail};
use mcp_memory_core::frame;
use mcp_memory_core::model::{
    EntityState, Fact, Millis, Reflection, Relation, RelationState, Target,
};
use mcp_memory_core::record::{Op, Record};
use mcp_memory_core::time;
use rusqlite::{Connection, OpenFlags};

/// Whether these bytes start a SQLite database.
pub fn is_sqlite(bytes: &[u8]) -> bool {
    bytes.starts_with(b"SQLite format 3\0")
}

/// A seed database read: a memory log file of its contents, and what was read and skipped.
pub struct Read {
    /// The memory as a log file in this package's format.
    pub log: Vec<u8>,
    /// What the database was, and the counts read and skipped, for the user.
    pub summary: String,
}

/// Owned rows, borrowed into the model's shapes when written.
struct EntityRow {
    name: String,
    entity_type: String,
    status: Option<String>,
    created: Millis,
    updated: Millis,
    facts: Vec<FactRow>,
}

/// An observation row.
struct FactRow {
    /// Its row id (what `supersedes` refers to).
    row: i64,
    text: String,
    kind: Option<String>,
    created: Millis,
    superseded: Millis,
    /// The row id of the observation it supersedes.
    supersedes: Option<i64>,
}

struct RelationRow {
    from: String,
    to: String,
    relation_type: String,
    context: Option<String>,
    created: Millis,
    ended: Millis,
}

struct ReflectionRow {
    target: (String, Option<String>, Option<(String, String, String)>),
    /// Whether its target is gone from the database (kept by its old id).
    dangling: bool,
    author: String,
    mood: Option<String>,
    content: String,
    created: Millis,
}

/// The files SQLite keeps beside a database in WAL mode.
const SIDE_FILES: [&str; 2] = ["-wal", "-shm"];

/// The side file `suffix` of the database at `path`.
fn side_file(path: &Path, suffix: &str) -> std::path::PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    name.into()
}

/// Reads the database at `path` (read-only) into a memory log file, leaving nothing
/// beside it that was not there: the side files a read-only connection makes for a
/// database in WAL mode are removed once it is closed (those a server of the database
/// keeps stay).
pub fn read(path: &Path) -> Result<Read> {
    let made: Vec<std::path::PathBuf> = SIDE_FILES
        .iter()
        .map(|s| side_file(path, s))
        .filter(|p| !p.exists())
        .collect();
    let db = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY)
        .with_context(|| format!("cannot open {} as a SQLite database", path.display()))?;
    let read = read_from(&db, path);
    db.close().map_err(|(_, e)| e)?;
    for p in made.iter().filter(|p| p.exists()) {
        std::fs::remove_file(p).with_context(|| format!("cannot remove {}", p.display()))?;
    }
    read
}

/// [`read`] of the open database `db`.
fn read_from(db: &Connection, path: &Path) -> Result<Read> {
    let tables: Vec<String> = db
        .prepare("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")?
        .query_map([], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    let has = |t: &str| tables.iter().any(|x| x == t);
    let (what, entities, relations, reflections) = if has("entity") && has("type_dict") {
        let (e, r) = rust_seed(db)?;
        ("the Rust mcp-memory 3.x database", e, r, Vec::new())
    } else if has("entities") && has("observations") {
        let (e, r, x) = python_seed(db)?;
        ("the Python MCP Memory v2 database", e, r, x)
    } else {
        bail!(
            "{} is a SQLite database, but not a Rust mcp-memory 3.x or Python MCP Memory v2 memory (no entity/type_dict or entities/observations tables)",
            path.display()
        );
    };
    let skipped: Vec<String> = [
        "entity_embeddings",
        "reflection_embeddings",
        "entity_access",
        "entity_access_log",
        "co_occurrences",
        "search_events",
        "search_results",
        "implicit_feedback",
    ]
    .iter()
    .filter(|t| has(t))
    .map(|t| {
        // sqlite-vec's tables read only with the extension; their rows are listed in a
        // plain table beside them.
        let count = |table: &str| {
            db.query_row(&format!("SELECT count(*) FROM \"{table}\""), [], |r| {
                r.get::<_, i64>(0)
            })
        };
        match count(t).or_else(|_| count(&format!("{t}_rowids"))) {
            Ok(n) => format!("{t} ({n} rows)"),
            Err(_) => format!("{t} (rows not counted)"),
        }
    })
    .collect();
    let observations: usize = entities.iter().map(|e| e.facts.len()).sum();
    let mut summary = format!(
        "read {what}: {} entities, {observations} observations, {} relations, {} reflections",
        entities.len(),
        relations.len(),
        reflections.len()
    );
    let dangling = reflections.iter().filter(|r| r.dangling).count();
    if dangling > 0 {
        summary.push_str(&format!(
            " ({dangling} about an entity or relation the database no longer holds, kept about it by its old id)"
        ));
    }
    if !skipped.is_empty() {
        summary.push_str(&format!(
            "; skipped (not memory: embeddings are recomputed, access statistics and search logs are not kept): {}",
            skipped.join(", ")
        ));
    }
    Ok(Read {
        log: log_of(&entities, &relations, &reflections),
        summary,
    })
}

/// The rows as records of the core, framed as a memory log file.
fn log_of(
    entities: &[EntityRow],
    relations: &[RelationRow],
    reflections: &[ReflectionRow],
) -> Vec<u8> {
    let states: Vec<EntityState<'_>> = entities.iter().map(entity_state).collect();
    let relations: Vec<RelationState<'_>> = relations
        .iter()
        .map(|r| RelationState {
            relation: Relation {
                from: &r.from,
                to: &r.to,
                relation_type: &r.relation_type,
            },
            created: r.created,
            context: r.context.as_deref(),
            ended: r.ended,
        })
        .collect();
    let reflections: Vec<Reflection<'_>> = reflections
        .iter()
        .zip(1..)
        .map(|(r, id)| Reflection {
            id,
            target: match &r.target {
                (_, Some(name), _) => Target::Entity(name),
                (_, _, Some((from, to, relation_type))) => Target::Relation(Relation {
                    from,
                    to,
                    relation_type,
                }),
                (kind, None, None) if kind == "global" => Target::Global,
                (session, None, None) => Target::Session(session),
            },
            author: &r.author,
            mood: r.mood.as_deref(),
            content: &r.content,
            created: r.created,
        })
        .collect();
    let chunk = mcp_memory_core::graph::SNAPSHOT_CHUNK;
    let ops = states
        .chunks(chunk)
        .map(|c| Op::PutEntities(c.to_vec()))
        .chain(
            relations
                .chunks(chunk)
                .map(|c| Op::PutRelations(c.to_vec())),
        )
        .chain(
            reflections
                .chunks(chunk)
                .map(|c| Op::PutReflections(c.to_vec())),
        );
    let records: Vec<Vec<u8>> = ops.map(|op| Record::from(op).encode()).collect();
    frame::encode_log(records.iter().map(Vec::as_slice))
}

/// An entity row in full: its observations numbered from 1 in row order, supersession
/// links renumbered with them.
fn entity_state(e: &EntityRow) -> EntityState<'_> {
    let local: HashMap<i64, u32> = e.facts.iter().zip(1..).map(|(f, id)| (f.row, id)).collect();
    let facts = e.facts.iter().zip(1..).map(|(f, id)| Fact {
        text: &f.text,
        id,
        kind: f.kind.as_deref().filter(|k| *k != "generic"),
        created: f.created,
        supersedes: f
            .supersedes
            .and_then(|s| local.get(&s).copied())
            .unwrap_or(0),
        superseded: f.superseded,
    });
    // Current observations first, then the superseded ones (the model's order).
    let (mut facts, past): (Vec<Fact<'_>>, Vec<Fact<'_>>) = facts.partition(|f| f.superseded == 0);
    facts.extend(past);
    EntityState {
        name: &e.name,
        entity_type: &e.entity_type,
        created: e.created,
        updated: e.updated.max(e.created),
        tags: Vec::new(),
        importance: None,
        parent: None,
        status: e.status.as_deref(),
        next_fact: e.facts.len() as u32 + 1,
        facts,
    }
}

/// A time as the Python seed stores it (`datetime('now')`: `YYYY-MM-DD HH:MM:SS`, UTC, or
/// ISO 8601); 0 if absent or unreadable.
fn text_time(text: Option<String>) -> Millis {
    text.and_then(|t| time::parse(t.trim()).ok()).unwrap_or(0)
}

/// Runs `sql` and calls `f` with each row.
fn each(
    db: &Connection,
    sql: &str,
    mut f: impl FnMut(&rusqlite::Row<'_>) -> rusqlite::Result<()>,
) -> rusqlite::Result<()> {
    let mut statement = db.prepare(sql)?;
    let mut rows = statement.query([])?;
    while let Some(row) = rows.next()? {
        f(row)?;
    }
    Ok(())
}

/// Microseconds (the Rust seed's times) as milliseconds.
fn micros(us: i64) -> Millis {
    u64::try_from(us / 1000).unwrap_or(0)
}

fn rust_seed(db: &Connection) -> Result<(Vec<EntityRow>, Vec<RelationRow>)> {
    let types: HashMap<i64, String> = db
        .prepare("SELECT id, name FROM type_dict")?
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<rusqlite::Result<_>>()?;
    let type_name = |id: i64| types.get(&id).cloned().unwrap_or_default();
    let mut ids = HashMap::new();
    let mut entities = Vec::new();
    each(
        db,
        "SELECT id, name, type_id, created_us, updated_us FROM entity WHERE flags = 0 ORDER BY id",
        |r| {
            ids.insert(r.get::<_, i64>(0)?, entities.len());
            entities.push(EntityRow {
                name: r.get(1)?,
                entity_type: type_name(r.get(2)?),
                status: None,
                created: micros(r.get(3)?),
                updated: micros(r.get(4)?),
                facts: Vec::new(),
            });
            Ok(())
        },
    )?;
    each(
        db,
        "SELECT entity_id, id, body, created_us FROM observation ORDER BY entity_id, idx, id",
        |r| {
            if let Some(&at) = ids.get(&r.get::<_, i64>(0)?) {
                entities[at].facts.push(FactRow {
                    row: r.get(1)?,
                    text: r.get(2)?,
                    kind: None,
                    created: micros(r.get(3)?),
                    superseded: 0,
                    supersedes: None,
                });
            }
            Ok(())
        },
    )?;
    let mut relations = Vec::new();
    let mut rows =
        db.prepare("SELECT from_id, to_id, type_id, created_us FROM relation ORDER BY rowid")?;
    let mut rows = rows.query([])?;
    while let Some(r) = rows.next()? {
        let name = |id: i64| ids.get(&id).map(|&i| entities[i].name.clone());
        let (Some(from), Some(to)) = (name(r.get(0)?), name(r.get(1)?)) else {
            continue;
        };
        relations.push(RelationRow {
            from,
            to,
            relation_type: type_name(r.get(2)?),
            context: None,
            created: micros(r.get(3)?),
            ended: 0,
        });
    }
    Ok((entities, relations))
}

type PythonSeed = (Vec<EntityRow>, Vec<RelationRow>, Vec<ReflectionRow>);

fn python_seed(db: &Connection) -> Result<PythonSeed> {
    let mut ids = HashMap::new();
    let mut entities = Vec::new();
    each(
        db,
        "SELECT id, name, entity_type, status, created_at, updated_at FROM entities ORDER BY id",
        |r| {
            ids.insert(r.get::<_, i64>(0)?, entities.len());
            entities.push(EntityRow {
                name: r.get(1)?,
                entity_type: r.get(2)?,
                status: r.get(3)?,
                created: text_time(r.get(4)?),
                updated: text_time(r.get(5)?),
                facts: Vec::new(),
            });
            Ok(())
        },
    )?;
    each(
        db,
        "SELECT entity_id, id, content, kind, created_at, superseded_at, supersedes FROM observations ORDER BY id",
        |r| {
            if let Some(&at) = ids.get(&r.get::<_, i64>(0)?) {
                entities[at].facts.push(FactRow {
                    row: r.get(1)?,
                    text: r.get(2)?,
                    kind: r.get(3)?,
                    created: text_time(r.get(4)?),
                    superseded: text_time(r.get(5)?),
                    supersedes: r.get(6)?,
                });
            }
            Ok(())
        },
    )?;
    let name = |id: Option<i64>| {
        id.and_then(|id| ids.get(&id))
            .map(|&i| entities[i].name.clone())
    };
    let mut relations = Vec::new();
    let mut triples = HashMap::new();
    each(
        db,
        "SELECT id, from_entity, to_entity, relation_type, context, active, ended_at, created_at FROM relations ORDER BY id",
        |r| {
            let (Some(from), Some(to)) = (name(r.get(1)?), name(r.get(2)?)) else {
                return Ok(());
            };
            let relation_type: String = r.get(3)?;
            let created = text_time(r.get(7)?);
            let active: i64 = r.get(5)?;
            // An inactive relation without an end time ended no later than it began to be known.
            let ended = match active {
                0 => text_time(r.get(6)?).max(created).max(1),
                _ => 0,
            };
            triples.insert(
                r.get::<_, i64>(0)?,
                (from.clone(), to.clone(), relation_type.clone()),
            );
            relations.push(RelationRow {
                from,
                to,
                relation_type,
                context: r.get(4)?,
                created,
                ended,
            });
            Ok(())
        },
    )?;
    let mut reflections = Vec::new();
    let exists: bool = db
        .query_row(
            "SELECT count(*) FROM sqlite_master WHERE name = 'reflections'",
            [],
            |r| r.get::<_, i64>(0),
        )
        .map(|n| n > 0)?;
    if exists {
        each(
            db,
            "SELECT target_type, target_id, author, content, mood, created_at FROM reflections ORDER BY id",
            |r| {
                let kind: String = r.get(0)?;
                let target_id: Option<i64> = r.get(1)?;
                // A target the database no longer holds (deleted, or never there) is
                // kept as what the reflection was about, by its old id.
                let gone = |what: &str| match target_id {
                    Some(id) => format!("#{id} ({what} the database no longer holds)"),
                    None => format!("({what} the database does not name)"),
                };
                let (target, dangling) = match kind.as_str() {
                    "entity" => match name(target_id) {
                        Some(n) => ((kind.clone(), Some(n), None), false),
                        None => ((kind.clone(), Some(gone("an entity")), None), true),
                    },
                    "relation" => match target_id.and_then(|id| triples.get(&id).cloned()) {
                        Some(t) => ((kind.clone(), None, Some(t)), false),
                        None => {
                            let t = (gone("a relation"), gone("a relation"), String::from("?"));
                            ((kind.clone(), None, Some(t)), true)
                        }
                    },
                    "session" => (
                        (
                            target_id.map_or_else(|| "session".into(), |id| id.to_string()),
                            None,
                            None,
                        ),
                        false,
                    ),
                    _ => (("global".into(), None, None), false),
                };
                reflections.push(ReflectionRow {
                    target,
                    dangling,
                    author: r.get(2)?,
                    content: r.get(3)?,
                    mood: r.get(4)?,
                    created: text_time(r.get(5)?),
                });
                Ok(())
            },
        )?;
    }
    Ok((entities, relations, reflections))
}
