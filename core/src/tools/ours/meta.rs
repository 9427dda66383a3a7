//! The richer model in the tools: the rules for tags, importance, parents, observation
//! kinds and supersession, relation context and ending, and reflections; the detail the
//! reads show when asked (`include`); and the tools that change it (`update_entities`,
//! `end_relations`, `add_reflection`).

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::capabilities::reflections;
use crate::hash::{HashMap, HashSet};
use crate::json;
use crate::memory::{Change, Store};
use crate::model::{self, EntityPatch, NewReflection, Target};
use crate::record::Op;
use crate::tools::Ctx;
use crate::tools::Plan;
use crate::tools::output;
use crate::tools::parse;
use crate::tools::rules::{check_parent, importance, tags};
use crate::tools::{Call, Done, Uses};

// ---------------------------------------------------------------------------------------
// Tools
// ---------------------------------------------------------------------------------------

#[derive(Deserialize)]
struct UpdateItem<'a> {
    name: &'a str,
    #[serde(borrow, default)]
    tags: Option<Vec<&'a str>>,
    #[serde(default, deserialize_with = "crate::tools::args::present")]
    importance: Option<Value>,
    #[serde(
        rename = "parentId",
        default,
        deserialize_with = "crate::tools::args::present"
    )]
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
        created_at: crate::time::iso_known(r.created),
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
    let out = Out { reflection: &view };
    let result = output::success(&json::pretty(&out), &out);
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
/// their bytes leave the file ([`forgotten`] reports it).
pub fn forget(m: &mut dyn Store, c: Call<'_>) -> Done {
    let planned = {
        let uses = Uses::default();
        planned_forgetting(Ctx::of(&*m, c.by, c.now, &uses), c.args)
    };
    let (change, names) = match planned {
        Ok(planned) => planned,
        Err(e) => return Done::failure(&e),
    };
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let result = match m.forget(change, c.now, &c.by, &refs) {
        Ok(f) => forgotten(&names, f.records, &f.remaining),
        Err(e) => output::failure(&e.to_string()),
    };
    Done {
        result,
        changed: true,
    }
}

/// A forgetting planned: the change, and the names whose bytes must leave the log.
fn planned_forgetting(t: Ctx<'_>, a: &Value) -> Result<(Change, Vec<String>), String> {
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
    Ok((Change::one(names, Op::Forget), owned))
}

/// The forget tool's result: what was forgotten, the log's records after compaction, and
/// names whose bytes still occur in the file (inside other entities' text).
fn forgotten(names: &[String], records: usize, remaining: &[(String, usize)]) -> String {
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

/// search_reflections: reflections ranked by relevance to the query
/// ([`reflections::ranked`]). Filters: author, mood, entity (those about it).
pub fn search_reflections(t: Ctx<'_>, a: &Value) -> Result<String, String> {
    let args = parse::<SearchReflectionsArgs>(a)?;
    let g = t.graph;
    let wanted = reflections::Wanted {
        author: args.author,
        mood: args.mood,
        about: |target: &crate::graph::Target| {
            args.entity.is_none_or(|x| match *target {
                crate::graph::Target::Entity(e) => g.text(e) == x,
                crate::graph::Target::Relation([from, to, _]) => {
                    g.text(from) == x || g.text(to) == x
                }
                _ => false,
            })
        },
    };
    let scored = reflections::ranked(g, args.query, wanted);
    let total = scored.len();
    let limit = args.limit.map_or(10, crate::tools::args::count);
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
