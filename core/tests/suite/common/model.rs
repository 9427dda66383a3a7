//! A direct transcription of the reference server's tool semantics (as
//! `tests/scenarios/tools-success.json` records it) on plain vectors, with this project's
//! two deliberate differences (a name or triple repeated inside one create call is created
//! once). Used as the oracle in property tests.

use serde_json::{Value, json};

/// An entity.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ent {
    /// Name.
    pub name: String,
    /// Type.
    pub entity_type: String,
    /// Observations.
    pub observations: Vec<String>,
}

/// A relation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rel {
    /// From.
    pub from: String,
    /// To.
    pub to: String,
    /// Type.
    pub relation_type: String,
}

impl Ent {
    /// As tools show it.
    pub fn json(&self) -> Value {
        json!({"name": self.name, "entityType": self.entity_type, "observations": self.observations})
    }
}

impl Rel {
    /// As tools show it.
    pub fn json(&self) -> Value {
        json!({"from": self.from, "to": self.to, "relationType": self.relation_type})
    }

    fn same(&self, other: &Rel) -> bool {
        self == other
    }
}

/// The reference's `{entities, relations}` graph.
#[derive(Clone, Debug, Default)]
pub struct Model {
    /// Entities in insertion order.
    pub entities: Vec<Ent>,
    /// Relations in insertion order.
    pub relations: Vec<Rel>,
}

/// JavaScript's `String.prototype.toLowerCase`, which Rust's `str::to_lowercase` follows
/// (full mapping with SpecialCasing and Final_Sigma, locale-independent).
pub fn js_lower(s: &str) -> String {
    s.to_lowercase()
}

impl Model {
    fn graph_json(entities: &[&Ent], relations: &[&Rel]) -> Value {
        json!({
            "entities": entities.iter().map(|e| e.json()).collect::<Vec<_>>(),
            "relations": relations.iter().map(|r| r.json()).collect::<Vec<_>>(),
        })
    }

    /// read_graph's structuredContent.
    pub fn read_graph(&self) -> Value {
        let e: Vec<&Ent> = self.entities.iter().collect();
        let r: Vec<&Rel> = self.relations.iter().collect();
        Self::graph_json(&e, &r)
    }

    /// create_entities: returns the created entities.
    pub fn create_entities(&mut self, input: &[Ent]) -> Vec<Ent> {
        let mut created: Vec<Ent> = Vec::new();
        for e in input {
            let exists = self.entities.iter().any(|x| x.name == e.name);
            let earlier = created.iter().any(|x| x.name == e.name); // deliberate difference
            if !exists && !earlier {
                created.push(e.clone());
            }
        }
        self.entities.extend(created.iter().cloned());
        created
    }

    /// create_relations: returns the created relations.
    pub fn create_relations(&mut self, input: &[Rel]) -> Vec<Rel> {
        let mut created: Vec<Rel> = Vec::new();
        for r in input {
            let exists = self.relations.iter().any(|x| x.same(r));
            let earlier = created.iter().any(|x| x.same(r)); // deliberate difference
            if !exists && !earlier {
                created.push(r.clone());
            }
        }
        self.relations.extend(created.iter().cloned());
        created
    }

    /// add_observations: per item the added observations, or the error text. On error the
    /// model is unchanged.
    pub fn add_observations(
        &mut self,
        items: &[(String, Vec<String>)],
    ) -> Result<Vec<(String, Vec<String>)>, String> {
        let mut next = self.entities.clone();
        let mut results = Vec::new();
        for (name, contents) in items {
            let Some(entity) = next.iter_mut().find(|e| &e.name == name) else {
                return Err(format!("Entity with name {name} not found"));
            };
            let added: Vec<String> = contents
                .iter()
                .filter(|c| !entity.observations.contains(c))
                .cloned()
                .collect();
            entity.observations.extend(added.iter().cloned());
            results.push((name.clone(), added));
        }
        self.entities = next;
        Ok(results)
    }

    /// delete_entities.
    pub fn delete_entities(&mut self, names: &[String]) {
        self.entities.retain(|e| !names.contains(&e.name));
        self.relations
            .retain(|r| !names.contains(&r.from) && !names.contains(&r.to));
    }

    /// delete_observations.
    pub fn delete_observations(&mut self, items: &[(String, Vec<String>)]) {
        for (name, doomed) in items {
            if let Some(entity) = self.entities.iter_mut().find(|e| &e.name == name) {
                entity.observations.retain(|o| !doomed.contains(o));
            }
        }
    }

    /// delete_relations.
    pub fn delete_relations(&mut self, doomed: &[Rel]) {
        self.relations.retain(|r| !doomed.iter().any(|d| d.same(r)));
    }

    fn touching(&self, names: &[&str]) -> Vec<&Rel> {
        self.relations
            .iter()
            .filter(|r| names.contains(&r.from.as_str()) || names.contains(&r.to.as_str()))
            .collect()
    }

    /// search_nodes' structuredContent.
    pub fn search_nodes(&self, query: &str) -> Value {
        let q = js_lower(query);
        let found: Vec<&Ent> = self
            .entities
            .iter()
            .filter(|e| {
                js_lower(&e.name).contains(&q)
                    || js_lower(&e.entity_type).contains(&q)
                    || e.observations.iter().any(|o| js_lower(o).contains(&q))
            })
            .collect();
        let names: Vec<&str> = found.iter().map(|e| e.name.as_str()).collect();
        Self::graph_json(&found, &self.touching(&names))
    }

    /// open_nodes' structuredContent.
    pub fn open_nodes(&self, names: &[String]) -> Value {
        let found: Vec<&Ent> = self
            .entities
            .iter()
            .filter(|e| names.contains(&e.name))
            .collect();
        let found_names: Vec<&str> = found.iter().map(|e| e.name.as_str()).collect();
        Self::graph_json(&found, &self.touching(&found_names))
    }
}
