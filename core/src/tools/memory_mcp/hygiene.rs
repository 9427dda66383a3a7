//! The TypeScript seed's hygiene reads, in its argument and result shapes:
//! `validate_graph` (what is wrong, and what looks odd) and `find_duplicates` (groups of
//! entities alike by its weighted score).
//!
//! Where it is loose this server is not: `validate_graph` also reports parents that do not
//! exist and parent cycles, lists at most `limit` issues and warnings (the summary counts
//! them all), and does not warn of unknown times (a converted reference file has none);
//! `find_duplicates` compares only pairs that can reach the threshold (sharing enough
//! observations, found through an index of the rarest ones), so 40K entities take a fifth
//! of a second instead of a quadratic scan, and finds pairs the seed's name-prefix buckets
//! never compare; below a threshold of about 0.67, where a name alone can make a
//! duplicate, every pair of one type is compared, up to two million.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::{answer, answer_list};
use crate::graph::{EntityId, Graph};
use crate::hash::{HashMap, HashSet};
use crate::intern::Sym;
use crate::tools::Ctx;
use crate::tools::parse;

/// An issue or a warning, as the seed shows it.
#[derive(Serialize)]
struct Finding {
    #[serde(rename = "type")]
    kind: &'static str,
    message: String,
    details: Value,
}

/// `validate_graph`: relations whose ends have no entity, names held twice, empty names or
/// types, parents that do not exist and parent cycles (issues); entities without relations
/// or observations (warnings).
pub fn validate_graph(t: Ctx<'_>, a: &Value) -> Result<String, String> {
    #[derive(Deserialize)]
    struct Args {
        limit: Option<u64>,
    }
    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Summary {
        total_errors: usize,
        total_warnings: usize,
        orphaned_relations_count: usize,
        entities_without_relations_count: usize,
    }
    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Report {
        is_valid: bool,
        issues: Vec<Finding>,
        warnings: Vec<Finding>,
        summary: Summary,
    }
    let limit = parse::<Args>(a)?.limit.map_or(100, |l| l as usize);
    let g = t.graph;
    let mut issues = Vec::new();
    let mut orphans = 0;
    for (_, r) in g.relations() {
        let relation = json!(g.relation_text(r));
        for (end, word) in [(r.from, "source"), (r.to, "target")] {
            let name = g.text(end);
            if g.first_named(name).is_none() {
                orphans += 1;
                issues.push(Finding {
                    kind: "orphaned_relation",
                    message: format!("Relation has non-existent {word} entity: \"{name}\""),
                    details: json!({"relation": relation, "missingEntity": name}),
                });
            }
        }
    }
    let mut seen: HashSet<Sym> = HashSet::default();
    for (_, e) in g.entities() {
        let count = g.named(g.text(e.name)).len();
        if count > 1 && seen.insert(e.name) {
            let name = g.text(e.name);
            issues.push(Finding {
                kind: "duplicate_entity",
                message: format!("Duplicate entity name found: \"{name}\" ({count} instances)"),
                details: json!({"entityName": name, "count": count}),
            });
        }
    }
    for (_, e) in g.entities() {
        let (name, kind) = (g.text(e.name), g.text(e.entity_type));
        let entity = || json!({"entity": g.entity_text(e)});
        if name.trim().is_empty() {
            issues.push(Finding {
                kind: "invalid_data",
                message: "Entity has empty or missing name".into(),
                details: entity(),
            });
        }
        if kind.trim().is_empty() {
            issues.push(Finding {
                kind: "invalid_data",
                message: format!("Entity \"{name}\" has empty or missing entityType"),
                details: entity(),
            });
        }
        if let Some(parent) = e.extra.as_deref().and_then(|x| x.parent) {
            let parent = g.text(parent);
            if g.first_named(parent).is_none() {
                issues.push(Finding {
                    kind: "missing_parent",
                    message: format!(
                        "Entity \"{name}\" has a parent that does not exist: \"{parent}\""
                    ),
                    details: json!({"entityName": name, "parentId": parent}),
                });
            } else if in_cycle(g, e.name) {
                issues.push(Finding {
                    kind: "parent_cycle",
                    message: format!("Entity \"{name}\" is its own ancestor (a parent cycle)"),
                    details: json!({"entityName": name}),
                });
            }
        }
    }
    let mut warnings = Vec::new();
    let mut isolated = 0;
    if g.relation_count() > 0 {
        for (_, e) in g.entities() {
            if !g.has_relations_at(g.text(e.name)) {
                isolated += 1;
                let name = g.text(e.name);
                warnings.push(Finding {
                    kind: "isolated_entity",
                    message: format!("Entity \"{name}\" has no relations to other entities"),
                    details: json!({"entityName": name}),
                });
            }
        }
    }
    for (_, e) in g.entities().filter(|(_, e)| e.observations.is_empty()) {
        let name = g.text(e.name);
        warnings.push(Finding {
            kind: "empty_observations",
            message: format!("Entity \"{name}\" has no observations"),
            details: json!({"entityName": name}),
        });
    }
    let summary = Summary {
        total_errors: issues.len(),
        total_warnings: warnings.len(),
        orphaned_relations_count: orphans,
        entities_without_relations_count: isolated,
    };
    issues.truncate(limit);
    warnings.truncate(limit);
    Ok(answer(&Report {
        is_valid: summary.total_errors == 0,
        issues,
        warnings,
        summary,
    }))
}

/// Whether following parents up from the entity named `name` comes back to it.
fn in_cycle(g: &Graph, name: Sym) -> bool {
    let mut seen = HashSet::default();
    let mut at = name;
    loop {
        let Some(id) = g.first_named(g.text(at)) else {
            return false;
        };
        let Some(parent) = g.entity(id).extra.as_deref().and_then(|x| x.parent) else {
            return false;
        };
        if parent == name {
            return true;
        }
        if !seen.insert(parent) {
            return false;
        }
        at = parent;
    }
}

/// The seed's weights: name (Levenshtein), type, observations (Jaccard), tags (Jaccard,
/// counted only when either entity has tags).
const NAME: f64 = 0.4;
const TYPE: f64 = 0.2;
const OBSERVATIONS: f64 = 0.3;
const TAGS: f64 = 0.1;

/// An entity as `find_duplicates` compares it: lowercased name, observations and tags.
struct Alike {
    id: EntityId,
    name: Vec<char>,
    observations: Vec<String>,
    tags: Vec<String>,
}

impl Alike {
    fn of(g: &Graph, id: EntityId) -> Alike {
        let e = g.entity(id);
        let lower = |s: Sym| g.text(s).to_lowercase();
        let mut observations: Vec<String> = e.observations.iter().map(|&o| lower(o)).collect();
        observations.sort_unstable();
        observations.dedup();
        let tags = e.extra.as_deref().map_or(Vec::new(), |x| {
            let mut t: Vec<String> = x.tags.iter().map(|&t| lower(t)).collect();
            t.sort_unstable();
            t
        });
        Alike {
            id,
            name: lower(e.name).chars().collect(),
            observations,
            tags,
        }
    }

    /// The seed's score of two entities of one type.
    fn score(&self, other: &Alike) -> f64 {
        let longest = self.name.len().max(other.name.len());
        let name = match longest {
            0 => 1.0,
            n => 1.0 - levenshtein(&self.name, &other.name) as f64 / n as f64,
        };
        let mut score =
            NAME * name + TYPE + OBSERVATIONS * jaccard(&self.observations, &other.observations);
        let mut factors = NAME + TYPE + OBSERVATIONS;
        if !self.tags.is_empty() || !other.tags.is_empty() {
            score += TAGS * jaccard(&self.tags, &other.tags);
            factors += TAGS;
        }
        score / factors
    }
}

/// Edit distance (insert, delete, substitute: 1 each).
fn levenshtein(a: &[char], b: &[char]) -> usize {
    super::search::levenshtein(a, b, &mut Vec::new())
}

/// |a ∩ b| / |a ∪ b| of two sorted, deduplicated lists (0 when both are empty).
fn jaccard(a: &[String], b: &[String]) -> f64 {
    let (mut i, mut j, mut common) = (0, 0, 0usize);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            core::cmp::Ordering::Less => i += 1,
            core::cmp::Ordering::Greater => j += 1,
            core::cmp::Ordering::Equal => {
                common += 1;
                i += 1;
                j += 1;
            }
        }
    }
    let union = a.len() + b.len() - common;
    if union == 0 {
        0.0
    } else {
        common as f64 / union as f64
    }
}

/// The least observation overlap (Jaccard) a pair needs to reach `threshold` with the best
/// name and tags: below it no pair can, so pairs are only compared when they share that much.
fn least_overlap(threshold: f64) -> f64 {
    let without_tags = (threshold * (NAME + TYPE + OBSERVATIONS) - NAME - TYPE) / OBSERVATIONS;
    let with_tags =
        (threshold * (NAME + TYPE + OBSERVATIONS + TAGS) - NAME - TYPE - TAGS) / OBSERVATIONS;
    without_tags.min(with_tags)
}

/// Pairs (positions in `group`, the first smaller) that may reach `threshold`: with an
/// overlap to reach, those sharing an observation among their rarest (prefix filtering: two
/// sets of Jaccard at least `t` share one of the first `|x| - ceil(t |x|) + 1` of each, in
/// one global order); with none, every pair.
fn candidates(group: &[Alike], threshold: f64) -> Result<Vec<(usize, usize)>, String> {
    let t = least_overlap(threshold);
    if t <= 0.0 {
        let n = group.len();
        let pairs = n * n.saturating_sub(1) / 2;
        if pairs > MAX_PAIRS {
            return Err(format!(
                "threshold: below about 0.67 a name alone can make a duplicate, so every pair of entities of one type is compared, and {n} entities of one type make {pairs} pairs (more than {MAX_PAIRS}): raise the threshold"
            ));
        }
        return Ok((0..n)
            .flat_map(|i| (i + 1..n).map(move |j| (i, j)))
            .collect());
    }
    let mut df: HashMap<&str, usize> = HashMap::default();
    for a in group {
        for o in &a.observations {
            *df.entry(o.as_str()).or_default() += 1;
        }
    }
    let mut index: HashMap<&str, Vec<usize>> = HashMap::default();
    let mut pairs = Vec::new();
    for (j, a) in group.iter().enumerate() {
        let mut rare: Vec<&str> = a.observations.iter().map(String::as_str).collect();
        rare.sort_unstable_by_key(|o| (df[o], *o));
        let keep = rare.len() + 1 - at_least(t * rare.len() as f64).min(rare.len());
        let mut met = HashSet::default();
        for o in rare.iter().take(keep) {
            let earlier = index.entry(o).or_default();
            for &i in earlier.iter() {
                if met.insert(i) {
                    pairs.push((i, j));
                }
            }
            earlier.push(j);
        }
    }
    Ok(pairs)
}

/// Most pairs of one type compared when no observation overlap is needed (about a second).
const MAX_PAIRS: usize = 2_000_000;

/// `find_duplicates`: groups of entities of one type (case-insensitive) alike at least
/// `threshold` (default 0.8): each group is an entity and those alike to it not already
/// grouped, in the memory's order.
pub fn find_duplicates(t: Ctx<'_>, a: &Value) -> Result<String, String> {
    let g = t.graph;
    let groups: Vec<Vec<&str>> = duplicate_groups(g, threshold(a)?)?
        .iter()
        .map(|group| group.iter().map(|&id| g.text(g.entity(id).name)).collect())
        .collect();
    Ok(answer_list("groups", &groups))
}

/// The `threshold` argument (default 0.8).
pub(crate) fn threshold(a: &Value) -> Result<f64, String> {
    #[derive(Deserialize)]
    struct Args {
        threshold: Option<f64>,
    }
    Ok(parse::<Args>(a)?.threshold.unwrap_or(0.8))
}

/// Groups of entities of one type alike by at least `threshold`, each everything free
/// that is alike to its first member, in entity order.
pub(crate) fn duplicate_groups(g: &Graph, threshold: f64) -> Result<Vec<Vec<EntityId>>, String> {
    let mut by_type: HashMap<String, Vec<EntityId>> = HashMap::default();
    let mut types: Vec<String> = Vec::new();
    for (id, e) in g.entities() {
        let kind = g.text(e.entity_type).to_lowercase();
        by_type
            .entry(kind.clone())
            .or_insert_with(|| {
                types.push(kind);
                Vec::new()
            })
            .push(id);
    }
    let mut groups: Vec<Vec<EntityId>> = Vec::new();
    for kind in &types {
        let group: Vec<Alike> = by_type[kind].iter().map(|&id| Alike::of(g, id)).collect();
        let mut alike: HashMap<usize, Vec<usize>> = HashMap::default();
        for (i, j) in candidates(&group, threshold)? {
            if group[i].name != group[j].name && group[i].score(&group[j]) >= threshold {
                alike.entry(i).or_default().push(j);
                alike.entry(j).or_default().push(i);
            }
        }
        let mut taken = alloc::vec![false; group.len()];
        for i in 0..group.len() {
            if taken[i] {
                continue;
            }
            let Some(partners) = alike.get_mut(&i) else {
                continue;
            };
            partners.sort_unstable();
            let free: Vec<usize> = partners.iter().copied().filter(|&j| !taken[j]).collect();
            if free.is_empty() {
                continue;
            }
            taken[i] = true;
            let mut members = alloc::vec![group[i].id];
            for j in free {
                taken[j] = true;
                members.push(group[j].id);
            }
            groups.push(members);
        }
    }
    Ok(groups)
}

/// The least whole number at least `x` (`x` ≥ 0; a hair over a whole number counts as it).
fn at_least(x: f64) -> usize {
    let whole = x as usize;
    whole + usize::from(x - whole as f64 > 1e-9)
}
