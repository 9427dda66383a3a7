//! The richer model in the tools: the rules for tags, importance, parents, observation
//! kinds and supersession, relation context and ending, and reflections; the detail the
//! reads show when asked (`include`); and the tools that change it (`update_entities`,
//! `end_relations`, `add_reflection`).

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{Ctx, Forgetting, Plan, output, parse};
use crate::graph::{Entity, EntityId, Graph, Relation};
use crate::hash::{HashMap, HashSet};
use crate::json;
use crate::memory::Change;
use crate::model::{self, EntityPatch, NewReflection, Target};
use crate::record::Op;
use crate::time;

/// The longest tag, in characters.
pub const MAX_TAG_CHARS: usize = 64;

/// Tags as stored: lowercased, each once, in order. `field` names the argument in errors.
pub fn tags(field: &str, given: &[&str]) -> Result<Vec<String>, String> {
    let mut out: Vec<String> = Vec::with_capacity(given.len());
    for (i, tag) in given.iter().enumerate() {
        let chars = tag.chars().count();
        if chars == 0 || chars > MAX_TAG_CHARS {
            return Err(format!(
                "{field}[{i}]: a tag must be 1 to {MAX_TAG_CHARS} characters long (this one has {chars})"
            ));
        }
        let lower = tag.to_lowercase();
        if !out.contains(&lower) {
            out.push(lower);
        }
    }
    Ok(out)
}

/// One tag argument, lowercased (1 to 64 characters).
pub fn one_tag(field: &str, tag: &str) -> Result<String, String> {
    let mut lowered = tags(field, &[tag]).map_err(|e| e.replacen("[0]", "", 1))?;
    Ok(lowered.pop().unwrap_or_default())
}

/// An importance: a number from 0 to 10, or (where `nullable`) null to clear it.
pub fn importance(field: &str, value: &Value, nullable: bool) -> Result<Option<f64>, String> {
    match value {
        Value::Number(n) => match n.as_f64() {
            Some(x) if (0.0..=10.0).contains(&x) => Ok(Some(x)),
            _ => Err(format!(
                "{field}: importance must be from 0 to 10 (got {n})"
            )),
        },
        Value::Null if nullable => Ok(None),
        other => Err(format!(
            "{field}: importance must be a number from 0 to 10{} (got {})",
            if nullable { " or null" } else { "" },
            json::type_name(Some(other))
        )),
    }
}

/// The parent of entity `name` as the graph has it, or as this call sets it (`pending`).
fn parent_of<'a>(
    graph: &'a Graph,
    pending: &HashMap<&'a str, Option<&'a str>>,
    name: &str,
) -> Option<&'a str> {
    if let Some(&set) = pending.get(name) {
        return set;
    }
    let id = graph.first_named(name)?;
    let parent = graph.entity(id).extra.as_ref()?.parent?;
    Some(graph.text(parent))
}

/// Checks that `parent` may become the parent of `child`: it exists (in the graph, or is
/// created by this call: `created`) and the chain of parents above it does not come back
/// to `child`. `pending` holds the parents this call sets before this one.
pub fn check_parent<'a>(
    graph: &'a Graph,
    created: &HashSet<&str>,
    pending: &HashMap<&'a str, Option<&'a str>>,
    field: &str,
    child: &str,
    parent: &'a str,
) -> Result<(), String> {
    if graph.first_named(parent).is_none() && !created.contains(parent) {
        return Err(format!("{field}: no entity is named {parent:?}"));
    }
    let mut chain = alloc::vec![child, parent];
    let mut seen = HashSet::default();
    let mut at = parent;
    while at != child {
        if !seen.insert(at) {
            // A loop above that does not pass through `child` (only an imported file can
            // hold one): `child` is not part of it.
            return Ok(());
        }
        match parent_of(graph, pending, at) {
            Some(up) => {
                chain.push(up);
                at = up;
            }
            None => return Ok(()),
        }
    }
    Err(format!(
        "{field}: {parent:?} cannot be the parent of {child:?}: that would make a cycle ({})",
        chain.join(" → ")
    ))
}

/// The id of the current observation of entity `id` that `supersedes` names: its id (a
/// number) or its exact text (a string).
pub fn superseded(
    graph: &Graph,
    id: EntityId,
    field: &str,
    supersedes: &Value,
) -> Result<u32, String> {
    let e = graph.entity(id);
    let name = graph.text(e.name);
    let found = match supersedes {
        Value::Number(n) => {
            let wanted = n.as_u64();
            e.facts
                .iter()
                .find(|f| Some(u64::from(f.id)) == wanted)
                .map(|f| f.id)
        }
        Value::String(text) => e
            .observations
            .iter()
            .position(|&o| graph.text(o) == text)
            .map(|i| e.facts[i].id),
        other => {
            return Err(format!(
                "{field}: supersedes must be an observation's id (a number) or its exact text (got {})",
                json::type_name(Some(other))
            ));
        }
    };
    found.ok_or_else(|| {
        format!("{field}: {name:?} has no current observation {supersedes} to supersede")
    })
}

// ---------------------------------------------------------------------------------------
// Detail views (include: metadata, history)
// ---------------------------------------------------------------------------------------

/// An observation in detail.
#[derive(Serialize)]
pub struct FactView<'a> {
    id: u32,
    text: &'a str,
    kind: &'a str,
    #[serde(rename = "createdAt", skip_serializing_if = "Option::is_none")]
    created_at: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    supersedes: Option<u32>,
    #[serde(rename = "supersededAt", skip_serializing_if = "Option::is_none")]
    superseded_at: Option<String>,
}

/// A time as shown: ISO 8601, or absent when not known.
fn shown(ms: model::Millis) -> Option<String> {
    (ms != 0).then(|| time::iso(ms))
}

/// An entity's metadata and observations in detail (and, with `history`, its superseded
/// observations).
#[derive(Serialize)]
pub struct EntityDetail<'a> {
    #[serde(rename = "createdAt", skip_serializing_if = "Option::is_none")]
    created_at: Option<String>,
    #[serde(rename = "updatedAt", skip_serializing_if = "Option::is_none")]
    updated_at: Option<String>,
    tags: Vec<&'a str>,
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "json::js_number"
    )]
    importance: Option<f64>,
    #[serde(rename = "parentId", skip_serializing_if = "Option::is_none")]
    parent: Option<&'a str>,
    status: &'a str,
    facts: Vec<FactView<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    superseded: Option<Vec<FactView<'a>>>,
}

/// The detail of entity `e`.
pub fn entity_detail<'g>(graph: &'g Graph, e: &Entity, history: bool) -> EntityDetail<'g> {
    let state = graph.entity_state(e);
    let view = |f: &model::Fact<'g>| FactView {
        id: f.id,
        text: f.text,
        kind: f.kind.unwrap_or("generic"),
        created_at: shown(f.created),
        supersedes: (f.supersedes != 0).then_some(f.supersedes),
        superseded_at: shown(f.superseded),
    };
    let (current, past): (Vec<_>, Vec<_>) = state.facts.iter().partition(|f| f.superseded == 0);
    EntityDetail {
        created_at: shown(state.created),
        updated_at: shown(state.updated),
        tags: state.tags,
        importance: state.importance,
        parent: state.parent,
        status: state.status.unwrap_or("active"),
        facts: current.into_iter().map(view).collect(),
        superseded: history.then(|| past.into_iter().map(view).collect()),
    }
}

/// A relation as reads show it: the reference's triple, and with `include` its time and
/// context (and, for an ended one, when it ended).
#[derive(Serialize)]
pub struct RelationView<'a> {
    from: &'a str,
    to: &'a str,
    #[serde(rename = "relationType")]
    relation_type: &'a str,
    #[serde(rename = "createdAt", skip_serializing_if = "Option::is_none")]
    created_at: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    context: Option<&'a str>,
    #[serde(rename = "endedAt", skip_serializing_if = "Option::is_none")]
    ended_at: Option<String>,
}

/// Relation `r` as shown: the triple only, or (`detail`) with its time and context.
pub fn relation_view<'g>(
    graph: &'g Graph,
    r: &Relation,
    detail: bool,
    ended: model::Millis,
) -> RelationView<'g> {
    let t = graph.relation_text(r);
    RelationView {
        from: t.from,
        to: t.to,
        relation_type: t.relation_type,
        created_at: if detail { shown(r.created) } else { None },
        context: if detail {
            r.context.map(|c| graph.text(c))
        } else {
            None
        },
        ended_at: shown(ended),
    }
}

// ---------------------------------------------------------------------------------------
// Tools
// ---------------------------------------------------------------------------------------

/// An argument that may be given as `null` (`Some(Value::Null)`), unlike one left out
/// (`None`, with `#[serde(default)]`).
pub(crate) fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

#[derive(Deserialize)]
struct UpdateItem<'a> {
    name: &'a str,
    #[serde(borrow, default)]
    tags: Option<Vec<&'a str>>,
    #[serde(default, deserialize_with = "present")]
    importance: Option<Value>,
    #[serde(rename = "parentId", default, deserialize_with = "present")]
    parent: Option<Value>,
    #[serde(default)]
    status: Option<&'a str>,
}

#[derive(Deserialize)]
struct UpdateArgs<'a> {
    #[serde(borrow)]
    entities: Vec<UpdateItem<'a>>,
}

#[derive(Serialize)]
struct UpdatedJson<'a> {
    name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    tags: Option<&'a [String]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    importance: Option<Option<f64>>,
    #[serde(rename = "parentId", skip_serializing_if = "Option::is_none")]
    parent: Option<Option<&'a str>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    status: Option<&'a str>,
}

/// update_entities: sets the metadata of existing entities (what an item leaves out is
/// kept); `null` clears importance or parentId.
pub fn update_entities(t: Ctx<'_>, a: &Value) -> Result<Plan, String> {
    let items = parse::<UpdateArgs>(a)?.entities;
    let mut lowered = Vec::with_capacity(items.len());
    let mut pending: HashMap<&str, Option<&str>> = HashMap::default();
    let mut importances = Vec::with_capacity(items.len());
    let mut parents = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let field = |name: &str| format!("entities[{i}].{name}");
        if t.graph.first_named(item.name).is_none() {
            return Err(format!("Entity with name {} not found", item.name));
        }
        let tags = match &item.tags {
            Some(given) => Some(tags(&field("tags"), given)?),
            None => None,
        };
        lowered.push(tags);
        importances.push(match &item.importance {
            Some(v) => Some(importance(&field("importance"), v, true)?),
            None => None,
        });
        let parent = match &item.parent {
            None => None,
            Some(Value::Null) => Some(None),
            Some(Value::String(p)) => {
                check_parent(
                    t.graph,
                    &HashSet::default(),
                    &pending,
                    &field("parentId"),
                    item.name,
                    p,
                )?;
                Some(Some(p.as_str()))
            }
            Some(other) => {
                return Err(format!(
                    "{}: parentId must be an entity's name or null (got {})",
                    field("parentId"),
                    json::type_name(Some(other))
                ));
            }
        };
        if let Some(p) = parent {
            pending.insert(item.name, p);
        }
        parents.push(parent);
    }
    let updated: Vec<UpdatedJson<'_>> = items
        .iter()
        .zip(&lowered)
        .zip(importances.iter().zip(&parents))
        .map(|((item, tags), (&importance, &parent))| UpdatedJson {
            name: item.name,
            tags: tags.as_deref(),
            importance,
            parent,
            status: item.status,
        })
        .collect();
    let patches: Vec<EntityPatch<'_>> = updated
        .iter()
        .map(|u| EntityPatch {
            name: u.name,
            tags: u.tags.map(|t| t.iter().map(String::as_str).collect()),
            importance: u.importance,
            parent: u.parent,
            status: u.status,
        })
        .collect();
    #[derive(Serialize)]
    struct Out<'s, 'a> {
        updated: &'s [UpdatedJson<'a>],
    }
    let result = output::success(&json::pretty(&updated), &Out { updated: &updated });
    Ok(Plan {
        change: Change::one(patches, Op::PatchEntities),
        result,
    })
}

#[derive(Deserialize)]
struct EndArgs<'a> {
    #[serde(borrow)]
    relations: Vec<model::Relation<'a>>,
}

/// end_relations: ends holding relations (they leave the graph for its history, with the
/// time they ended); a triple with no holding relation fails the call.
pub fn end_relations(t: Ctx<'_>, a: &Value) -> Result<Plan, String> {
    let relations = parse::<EndArgs>(a)?.relations;
    let mut seen = HashSet::default();
    for (i, r) in relations.iter().enumerate() {
        if !t.graph.has_relation(r.from, r.to, r.relation_type) {
            return Err(format!(
                "relations[{i}]: no holding relation {:?} --{:?}--> {:?} to end",
                r.from, r.relation_type, r.to
            ));
        }
    }
    let ended: Vec<model::Relation<'_>> =
        relations.into_iter().filter(|r| seen.insert(*r)).collect();
    #[derive(Serialize)]
    struct Out<'s, 'a> {
        ended: &'s [model::Relation<'a>],
    }
    let result = output::success(&json::pretty(&ended), &Out { ended: &ended });
    Ok(Plan {
        change: Change::one(ended, Op::EndRelations),
        result,
    })
}

#[derive(Deserialize)]
struct ReflectArgs<'a> {
    content: &'a str,
    #[serde(default)]
    entity: Option<&'a str>,
    #[serde(borrow, default)]
    relation: Option<model::Relation<'a>>,
    #[serde(default)]
    session: Option<&'a str>,
    #[serde(default)]
    author: Option<&'a str>,
    #[serde(default)]
    mood: Option<&'a str>,
}

/// A reflection as tools show it.
#[derive(Serialize)]
pub struct ReflectionView<'a> {
    id: u32,
    about: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    entity: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    relation: Option<model::Relation<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    session: Option<&'a str>,
    author: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    mood: Option<&'a str>,
    content: &'a str,
    #[serde(rename = "createdAt", skip_serializing_if = "Option::is_none")]
    created_at: Option<String>,
}

/// A reflection as tools show it.
pub fn reflection_view(r: model::Reflection<'_>) -> ReflectionView<'_> {
    let (about, entity, relation, session) = match r.target {
        Target::Global => ("global", None, None, None),
        Target::Entity(name) => ("entity", Some(name), None, None),
        Target::Relation(t) => ("relation", None, Some(t), None),
        Target::Session(id) => ("session", None, None, Some(id)),
    };
    ReflectionView {
        id: r.id,
        about,
        entity,
        relation,
        session,
        author: r.author,
        mood: r.mood,
        content: r.content,
        created_at: shown(r.created),
    }
}

/// add_reflection: a note about an entity, a relation, a session (`"current"`: this one)
/// or, with none of them, the memory as a whole. The author defaults to the client's name.
pub fn add_reflection(t: Ctx<'_>, a: &Value) -> Result<Plan, String> {
    let args = parse::<ReflectArgs>(a)?;
    let given = [
        args.entity.is_some(),
        args.relation.is_some(),
        args.session.is_some(),
    ];
    if given.iter().filter(|&&g| g).count() > 1 {
        return Err(
            "a reflection is about one thing: give at most one of entity, relation and session"
                .to_string(),
        );
    }
    if args.content.trim().is_empty() {
        return Err("content: a reflection needs some text".to_string());
    }
    let target = match (args.entity, args.relation, args.session) {
        (Some(name), _, _) => {
            if t.graph.first_named(name).is_none() {
                return Err(format!("entity: no entity is named {name:?}"));
            }
            Target::Entity(name)
        }
        (_, Some(r), _) => {
            if !t.graph.has_relation(r.from, r.to, r.relation_type) {
                return Err(format!(
                    "relation: no holding relation {:?} --{:?}--> {:?}",
                    r.from, r.relation_type, r.to
                ));
            }
            Target::Relation(r)
        }
        (_, _, Some("current")) => Target::Session(t.by.session),
        (_, _, Some(id)) => Target::Session(id),
        _ => Target::Global,
    };
    let author = args.author.unwrap_or(if t.by.client.is_empty() {
        "unknown"
    } else {
        t.by.client
    });
    let reflection = NewReflection {
        target,
        author,
        mood: args.mood,
        content: args.content,
    };
    let id = t.graph.next_reflection_id();
    let view = reflection_view(model::Reflection {
        id,
        target,
        author,
        mood: args.mood,
        content: args.content,
        created: 0,
    });
    #[derive(Serialize)]
    struct Out<'s, 'a> {
        reflection: &'s ReflectionView<'a>,
    }
    let result = output::success(&json::pretty(&view), &Out { reflection: &view });
    Ok(Plan {
        change: Change::of(alloc::vec![Op::Reflect(alloc::vec![reflection])]),
        result,
    })
}

#[derive(Deserialize)]
struct ForgetArgs<'a> {
    #[serde(rename = "entityNames", borrow)]
    entity_names: Vec<&'a str>,
}

/// forget: every trace of these entities (as `delete_entities`, and their ended relations,
/// the reflections about them, parent links to them); the log is compacted at once, so
/// their bytes leave the file (see `mcp` for the report).
pub fn forget(t: Ctx<'_>, a: &Value) -> Result<Forgetting, String> {
    let names = parse::<ForgetArgs>(a)?.entity_names;
    let mut seen = HashSet::default();
    let names: Vec<&str> = names.into_iter().filter(|n| seen.insert(*n)).collect();
    let unknown: Vec<&str> = names
        .iter()
        .copied()
        .filter(|n| t.graph.named(n).is_empty() && !t.graph.has_relations_at(n))
        .collect();
    if !unknown.is_empty() {
        return Err(format!(
            "entityNames: nothing is known of {} (no entity, no relation)",
            unknown
                .iter()
                .map(|n| format!("{n:?}"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    let owned = names.iter().map(|n| n.to_string()).collect();
    let plan = Plan {
        change: Change::one(names, Op::Forget),
        result: String::new(),
    };
    Ok((plan, owned))
}

/// The forget tool's result: what was forgotten, the log's records after compaction, and
/// names whose bytes still occur in the file (inside other entities' text).
pub fn forgotten(names: &[String], records: usize, remaining: &[(String, usize)]) -> String {
    #[derive(Serialize)]
    struct Still<'a> {
        name: &'a str,
        records: usize,
    }
    #[derive(Serialize)]
    struct Out<'a> {
        forgotten: &'a [String],
        records: usize,
        gone: bool,
        #[serde(rename = "stillInFile")]
        still: Vec<Still<'a>>,
    }
    let out = Out {
        forgotten: names,
        records,
        gone: remaining.is_empty(),
        still: remaining
            .iter()
            .map(|(name, records)| Still {
                name,
                records: *records,
            })
            .collect(),
    };
    output::success(&json::pretty(&out), &out)
}

#[derive(Deserialize)]
struct SearchReflectionsArgs<'a> {
    #[serde(default)]
    query: &'a str,
    #[serde(default)]
    author: Option<&'a str>,
    #[serde(default)]
    mood: Option<&'a str>,
    #[serde(default)]
    entity: Option<&'a str>,
    #[serde(default)]
    limit: Option<u64>,
}

/// BM25's parameters, as the entity search uses them.
const K1: f64 = 1.2;
const B: f64 = 0.75;

/// Reflections that are `wanted`, ranked by relevance to `query` (BM25 over their folded,
/// accent-free words, stopwords left out unless the query has nothing else; the score
/// rounded to 4 decimals), newest first among equals; with no query words, newest first.
pub fn ranked_reflections<'g>(
    g: &'g Graph,
    query: &str,
    wanted: impl Fn(&crate::graph::Reflection) -> bool,
) -> Vec<(f64, &'g crate::graph::Reflection)> {
    let candidates: Vec<&crate::graph::Reflection> =
        g.reflections().iter().filter(|r| wanted(r)).collect();
    let mut words: Vec<String> = crate::index::search::text::token_list(query);
    // Stopwords are left out, unless the query has nothing else.
    if words
        .iter()
        .any(|w| !crate::index::search::text::is_stopword(w))
    {
        words.retain(|w| !crate::index::search::text::is_stopword(w));
    }
    words.sort_unstable();
    words.dedup();
    let docs: Vec<Vec<String>> = candidates
        .iter()
        .map(|r| crate::index::search::text::token_list(g.text(r.content)))
        .collect();
    let n = docs.len() as f64;
    let average = docs.iter().map(Vec::len).sum::<usize>() as f64 / n.max(1.0);
    let mut scored: Vec<(f64, &crate::graph::Reflection)> = candidates
        .iter()
        .zip(&docs)
        .map(|(&r, doc)| {
            let score = words
                .iter()
                .map(|w| {
                    let tf = doc.iter().filter(|d| *d == w).count() as f64;
                    let df = docs.iter().filter(|d| d.contains(w)).count() as f64;
                    let idf = crate::index::search::ln(1.0 + (n - df + 0.5) / (df + 0.5));
                    idf * tf * (K1 + 1.0)
                        / (tf + K1 * (1.0 - B + B * doc.len() as f64 / average.max(1.0)))
                })
                .sum::<f64>();
            (score, r)
        })
        .filter(|(score, _)| words.is_empty() || *score > 0.0)
        .collect();
    scored.sort_by(|a, b| {
        b.0.total_cmp(&a.0)
            .then(b.1.created.cmp(&a.1.created))
            .then(b.1.id.cmp(&a.1.id))
    });
    for s in &mut scored {
        s.0 = (s.0 * 10_000.0 + 0.5) as u64 as f64 / 10_000.0;
    }
    scored
}

/// search_reflections: reflections ranked by relevance to the query
/// ([`ranked_reflections`]). Filters: author, mood, entity (those about it).
pub fn search_reflections(t: Ctx<'_>, a: &Value) -> Result<String, String> {
    let args = parse::<SearchReflectionsArgs>(a)?;
    let g = t.graph;
    let wanted = |r: &crate::graph::Reflection| {
        args.author.is_none_or(|x| g.text(r.author) == x)
            && args
                .mood
                .is_none_or(|x| r.mood.is_some_and(|m| g.text(m) == x))
            && args.entity.is_none_or(|x| match r.target {
                crate::graph::Target::Entity(e) => g.text(e) == x,
                crate::graph::Target::Relation([from, to, _]) => {
                    g.text(from) == x || g.text(to) == x
                }
                _ => false,
            })
    };
    let scored = ranked_reflections(g, args.query, wanted);
    let total = scored.len();
    let limit = args.limit.map_or(10, super::args::count);
    #[derive(Serialize)]
    struct Hit<'a> {
        #[serde(flatten)]
        reflection: ReflectionView<'a>,
        score: f64,
    }
    #[derive(Serialize)]
    struct Out<'a> {
        reflections: Vec<Hit<'a>>,
        total: usize,
    }
    let out = Out {
        reflections: scored
            .into_iter()
            .take(limit)
            .map(|(score, r)| Hit {
                reflection: reflection_view(g.reflection_text(r)),
                score,
            })
            .collect(),
        total,
    };
    Ok(output::success(&json::pretty(&out), &out))
}
