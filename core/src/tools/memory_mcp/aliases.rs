//! The TypeScript seed's tag alias tools, in its argument and result shapes: a tag alias
//! reads one tag as another, its canonical tag (`add_tag_alias`, `list_tag_aliases`,
//! `remove_tag_alias`, `get_aliases_for_tag`, `resolve_tag`). Aliases are kept in the log
//! like everything else (the seed keeps them in a side file).
//!
//! Where it is loose this server is not: an alias never points at another alias (the seed
//! makes chains it never follows), nor at itself; and the tag filters of the reads read an
//! alias as its canonical tag.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{answer, answer_list};
use crate::graph::Graph;
use crate::memory::Change;
use crate::model;
use crate::record::Op;
use crate::time::iso_known;
use crate::tools::Ctx;
use crate::tools::Plan;
use crate::tools::filter::canonical;
use crate::tools::output;
use crate::tools::parse;
use crate::tools::rules::one_tag;

/// A tag alias as the seed shows it.
#[derive(Serialize)]
struct AliasJson<'a> {
    alias: &'a str,
    canonical: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<&'a str>,
    #[serde(rename = "createdAt", skip_serializing_if = "Option::is_none")]
    created: Option<String>,
}

impl<'a> AliasJson<'a> {
    fn of(a: model::TagAlias<'a>) -> Self {
        AliasJson {
            alias: a.alias,
            canonical: a.canonical,
            description: a.description,
            created: iso_known(a.created),
        }
    }
}

/// The alias `alias` (lowercase) names, if there is one.
fn alias_of<'g>(g: &'g Graph, alias: &str) -> Option<model::TagAlias<'g>> {
    let found = g.tag_aliases().iter().find(|a| g.text(a.alias) == alias);
    found.map(|a| g.tag_alias_text(a))
}

/// `add_tag_alias`: makes `alias` read as `canonical`; answers the alias.
pub fn add_tag_alias(t: Ctx<'_>, a: &Value) -> Result<Plan, String> {
    #[derive(Deserialize)]
    struct Args<'a> {
        alias: &'a str,
        canonical: &'a str,
        description: Option<&'a str>,
    }
    let args = parse::<Args>(a)?;
    let alias = one_tag("alias", args.alias)?;
    let target = one_tag("canonical", args.canonical)?;
    let g = t.graph;
    if alias_of(g, &alias).is_some() {
        return Err(format!("Tag alias \"{}\" already exists", args.alias));
    }
    if g.tag_aliases().iter().any(|x| g.text(x.canonical) == alias) {
        return Err(format!(
            "Cannot create alias to \"{}\" because it is a canonical tag with existing aliases",
            args.alias
        ));
    }
    if alias == target {
        return Err(format!("alias: \"{alias}\" cannot be an alias of itself"));
    }
    if let Some(other) = alias_of(g, &target) {
        return Err(format!(
            "canonical: \"{target}\" is itself an alias of \"{}\": make the alias to \"{}\"",
            other.canonical, other.canonical
        ));
    }
    let made = model::TagAlias {
        alias: &alias,
        canonical: &target,
        description: args.description,
        created: t.now,
    };
    Ok(Plan {
        change: Change::one(alloc::vec![made], Op::PutTagAliases),
        result: answer(&AliasJson::of(made)),
    })
}

/// `list_tag_aliases`: every alias, in the order made.
pub fn list_tag_aliases(t: Ctx<'_>, _: &Value) -> Result<String, String> {
    let g = t.graph;
    let all: Vec<AliasJson<'_>> = g
        .tag_aliases()
        .iter()
        .map(|a| AliasJson::of(g.tag_alias_text(a)))
        .collect();
    Ok(answer_list("aliases", &all))
}

/// `remove_tag_alias`: removes an alias; answers in words (not an error when there is
/// none, as the seed answers).
pub fn remove_tag_alias(t: Ctx<'_>, a: &Value) -> Result<Plan, String> {
    #[derive(Deserialize)]
    struct Args<'a> {
        alias: &'a str,
    }
    #[derive(Serialize)]
    struct Removed<'a> {
        removed: bool,
        message: &'a str,
    }
    let given = parse::<Args>(a)?.alias;
    let alias = given.to_lowercase();
    let found = alias_of(t.graph, &alias).is_some();
    let message = match found {
        true => format!("Tag alias \"{given}\" removed successfully"),
        false => format!("Tag alias \"{given}\" not found"),
    };
    let removed = found.then_some(alias.as_str());
    Ok(Plan {
        change: Change::one(removed.into_iter().collect(), Op::RemoveTagAliases),
        result: output::success(
            &message,
            &Removed {
                removed: found,
                message: &message,
            },
        ),
    })
}

/// `get_aliases_for_tag`: the aliases of a canonical tag, in the order made.
pub fn get_aliases_for_tag(t: Ctx<'_>, a: &Value) -> Result<String, String> {
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Args<'a> {
        canonical_tag: &'a str,
    }
    let tag = parse::<Args>(a)?.canonical_tag.to_lowercase();
    let g = t.graph;
    let aliases: Vec<&str> = g
        .tag_aliases()
        .iter()
        .filter(|x| g.text(x.canonical) == tag)
        .map(|x| g.text(x.alias))
        .collect();
    Ok(answer_list("aliases", &aliases))
}

/// `resolve_tag`: the canonical tag a tag stands for (itself, lowercased, if it is no
/// alias).
pub fn resolve_tag(t: Ctx<'_>, a: &Value) -> Result<String, String> {
    #[derive(Deserialize)]
    struct Args<'a> {
        tag: &'a str,
    }
    #[derive(Serialize)]
    struct Resolved<'a> {
        tag: &'a str,
        resolved: &'a str,
    }
    let given = parse::<Args>(a)?.tag;
    let lower = given.to_lowercase();
    Ok(answer(&Resolved {
        tag: given,
        resolved: canonical(t.graph, &lower),
    }))
}
