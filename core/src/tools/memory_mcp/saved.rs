//! The TypeScript seed's saved searches, in its argument and result shapes: a search kept
//! by name to run again (`save_search`, `execute_saved_search`, `list_saved_searches`,
//! `delete_saved_search`, `update_saved_search`). They are kept in the log like everything
//! else (the seed keeps them in a side file); running one counts it (`useCount`,
//! `lastUsed`), which is a change.
//!
//! A saved search runs as `search_nodes` with its filters (`tags`, `minImportance`,
//! `maxImportance`, and `entityType`, which the seed saves but ignores). Where the seed
//! cannot clear a field, `update_saved_search` clears one given `null`.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{answer, answer_list};
use crate::graph::Graph;
use crate::json;
use crate::memory::Change;
use crate::model::SavedSearch;
use crate::record::Op;
use crate::time::iso_known;
use crate::tools::Ctx;
use crate::tools::Plan;
use crate::tools::output;
use crate::tools::parse;
use crate::tools::reference::query;
use crate::tools::rules::{importance, tags};

/// The longest name, query and description, in characters.
const MAX_NAME: usize = 200;
const MAX_QUERY: usize = 1000;
const MAX_DESCRIPTION: usize = 1000;

/// A saved search as the seed shows it.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SearchJson<'a> {
    name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<&'a str>,
    query: &'a str,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tags: Vec<&'a str>,
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "json::js_number"
    )]
    min_importance: Option<f64>,
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "json::js_number"
    )]
    max_importance: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    entity_type: Option<&'a str>,
    #[serde(rename = "createdAt", skip_serializing_if = "Option::is_none")]
    created: Option<String>,
    use_count: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    last_used: Option<String>,
}

impl<'a> SearchJson<'a> {
    fn of(q: &SavedSearch<'a>) -> Self {
        SearchJson {
            name: q.name,
            description: q.description,
            query: q.query,
            tags: q.tags.clone(),
            min_importance: q.min_importance,
            max_importance: q.max_importance,
            entity_type: q.entity_type,
            created: iso_known(q.created),
            use_count: q.use_count,
            last_used: iso_known(q.last_used),
        }
    }
}

/// The saved search called `name`, or the seed's error.
fn saved<'g>(g: &'g Graph, name: &str) -> Result<SavedSearch<'g>, String> {
    let found = g.saved_searches().iter().find(|q| g.text(q.name) == name);
    found
        .map(|q| g.saved_search_text(q))
        .ok_or_else(|| format!("Saved search \"{name}\" not found"))
}

/// Checks that text argument `field` is 1 to `max` characters long.
fn text_of(field: &str, text: &str, max: usize) -> Result<(), String> {
    let chars = text.chars().count();
    if chars == 0 || chars > max {
        return Err(format!(
            "{field}: must be 1 to {max} characters long (this one has {chars})"
        ));
    }
    Ok(())
}

/// A plan saving `q` (in place of the one of its name), answered with `result`.
fn saving(q: SavedSearch<'_>, result: String) -> Plan {
    Plan {
        change: Change::one(alloc::vec![q], Op::PutSavedSearches),
        result,
    }
}

/// The fields a saved search is made of, as given (to create one, or to update one).
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Fields<'a> {
    #[serde(default, deserialize_with = "crate::tools::args::present")]
    description: Option<Value>,
    query: Option<&'a str>,
    #[serde(default, deserialize_with = "crate::tools::args::present")]
    tags: Option<Value>,
    #[serde(default, deserialize_with = "crate::tools::args::present")]
    min_importance: Option<Value>,
    #[serde(default, deserialize_with = "crate::tools::args::present")]
    max_importance: Option<Value>,
    #[serde(default, deserialize_with = "crate::tools::args::present")]
    entity_type: Option<Value>,
}

/// A text field given (`Some(None)`: cleared with null).
fn opt_text<'v>(
    field: &str,
    value: &'v Option<Value>,
    max: usize,
) -> Result<Option<Option<&'v str>>, String> {
    match value {
        None => Ok(None),
        Some(Value::Null) => Ok(Some(None)),
        Some(Value::String(s)) => text_of(field, s, max).map(|()| Some(Some(s.as_str()))),
        Some(other) => Err(format!(
            "{field}: must be a string or null (got {})",
            json::type_name(Some(other))
        )),
    }
}

impl<'a> Fields<'a> {
    /// Applies the fields given to `q` (`prefix` names the argument holding them);
    /// `lowered` keeps the tags' lowercased text alive for `q`.
    fn apply<'s>(
        &'s self,
        prefix: &str,
        q: &mut SavedSearch<'s>,
        lowered: &'s mut Vec<String>,
    ) -> Result<(), String> {
        let field = |name: &str| format!("{prefix}{name}");
        if let Some(query) = self.query {
            text_of(&field("query"), query, MAX_QUERY)?;
            q.query = query;
        }
        if let Some(d) = opt_text(&field("description"), &self.description, MAX_DESCRIPTION)? {
            q.description = d;
        }
        if let Some(t) = opt_text(&field("entityType"), &self.entity_type, MAX_NAME)? {
            q.entity_type = t;
        }
        match &self.tags {
            None => {}
            Some(Value::Null) => q.tags.clear(),
            Some(Value::Array(items)) => {
                let given: Option<Vec<&str>> = items.iter().map(Value::as_str).collect();
                let given = given.ok_or_else(|| format!("{}: must be strings", field("tags")))?;
                *lowered = tags(&field("tags"), &given)?;
                q.tags = lowered.iter().map(String::as_str).collect();
            }
            Some(_) => return Err(format!("{}: must be an array of strings", field("tags"))),
        }
        for (name, value, bound) in [
            ("minImportance", &self.min_importance, &mut q.min_importance),
            ("maxImportance", &self.max_importance, &mut q.max_importance),
        ] {
            if let Some(v) = value {
                *bound = importance(&field(name), v, true)?;
            }
        }
        Ok(())
    }
}

/// `save_search`: keeps a search by name; answers it.
pub fn save_search(t: Ctx<'_>, a: &Value) -> Result<Plan, String> {
    let mut fields: Map<String, Value> = a.as_object().cloned().unwrap_or_default();
    let name = match fields.remove("name") {
        Some(Value::String(n)) => n,
        _ => return Err("name: required, a string".to_string()),
    };
    let name = name.trim();
    text_of("name", name, MAX_NAME)?;
    let fields = Value::Object(fields);
    let given = parse::<Fields>(&fields)?;
    if saved(t.graph, name).is_ok() {
        return Err(format!("Saved search with name \"{name}\" already exists"));
    }
    let mut q = SavedSearch {
        name,
        description: None,
        query: "",
        tags: Vec::new(),
        min_importance: None,
        max_importance: None,
        entity_type: None,
        created: t.now,
        use_count: 0,
        last_used: 0,
    };
    let mut lowered = Vec::new();
    given.apply("", &mut q, &mut lowered)?;
    let result = answer(&SearchJson::of(&q));
    Ok(saving(q, result))
}

#[derive(Deserialize)]
struct Named<'a> {
    name: &'a str,
}

/// `execute_saved_search`: runs a saved search as `search_nodes` with its filters, and
/// counts the run.
pub fn execute_saved_search(t: Ctx<'_>, a: &Value) -> Result<Plan, String> {
    let mut q = saved(t.graph, parse::<Named>(a)?.name)?;
    let mut args = Map::new();
    args.insert("query".into(), q.query.into());
    if !q.tags.is_empty() {
        args.insert("tags".into(), q.tags.clone().into());
    }
    let bounds = [
        ("minImportance", q.min_importance),
        ("maxImportance", q.max_importance),
    ];
    for (key, bound) in bounds {
        if let Some(b) = bound {
            args.insert(key.into(), b.into());
        }
    }
    if let Some(t) = q.entity_type {
        args.insert("entityType".into(), t.into());
    }
    let result = query::search_nodes(t, &Value::Object(args))?.into_text(t.graph);
    q.use_count = q.use_count.saturating_add(1);
    q.last_used = t.now;
    Ok(saving(q, result))
}

/// `list_saved_searches`: every saved search, in the order saved.
pub fn list_saved_searches(t: Ctx<'_>, _: &Value) -> Result<String, String> {
    let g = t.graph;
    let all: Vec<SavedSearch<'_>> = g
        .saved_searches()
        .iter()
        .map(|q| g.saved_search_text(q))
        .collect();
    let shown: Vec<SearchJson<'_>> = all.iter().map(SearchJson::of).collect();
    Ok(answer_list("searches", &shown))
}

/// `delete_saved_search`: removes a saved search; answers in words (not an error when
/// there is none, as the seed answers).
pub fn delete_saved_search(t: Ctx<'_>, a: &Value) -> Result<Plan, String> {
    #[derive(Serialize)]
    struct Deleted<'a> {
        deleted: bool,
        message: &'a str,
    }
    let name = parse::<Named>(a)?.name;
    let found = saved(t.graph, name).is_ok();
    let message = match found {
        true => format!("Saved search \"{name}\" deleted successfully"),
        false => format!("Saved search \"{name}\" not found"),
    };
    let deleted = Deleted {
        deleted: found,
        message: &message,
    };
    Ok(Plan {
        change: Change::one(
            found.then_some(name).into_iter().collect(),
            Op::RemoveSavedSearches,
        ),
        result: output::success(&message, &deleted),
    })
}

/// `update_saved_search`: changes the fields `updates` gives (null clears an optional
/// one); answers the saved search as it is then.
pub fn update_saved_search(t: Ctx<'_>, a: &Value) -> Result<Plan, String> {
    #[derive(Deserialize)]
    struct Args<'a> {
        name: &'a str,
        #[serde(borrow)]
        updates: Fields<'a>,
    }
    let args = parse::<Args>(a).map_err(|e| format!("updates: {e}"))?;
    let mut q = saved(t.graph, args.name)?;
    let mut lowered = Vec::new();
    args.updates.apply("updates.", &mut q, &mut lowered)?;
    let result = answer(&SearchJson::of(&q));
    Ok(saving(q, result))
}
