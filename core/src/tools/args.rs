//! Typed tool arguments, borrowed from the request's JSON after it passed the schema check.
//! Unknown properties are ignored, as the reference's validator strips them.

use alloc::vec::Vec;
use serde::Deserialize;

/// One entity of create_entities.
#[derive(Deserialize, Debug, Clone)]
pub struct EntityArg<'a> {
    /// The entity's name.
    pub name: &'a str,
    /// The entity's type.
    #[serde(rename = "entityType")]
    pub entity_type: &'a str,
    /// Observations to start with.
    #[serde(borrow)]
    pub observations: Vec<&'a str>,
}

/// One relation of create_relations and delete_relations.
#[derive(Deserialize, Debug, Clone, Copy)]
pub struct RelationArg<'a> {
    /// Name where the relation starts.
    pub from: &'a str,
    /// Name where the relation ends.
    pub to: &'a str,
    /// The relation's type.
    #[serde(rename = "relationType")]
    pub relation_type: &'a str,
}

/// One item of add_observations.
#[derive(Deserialize, Debug, Clone)]
pub struct AddArg<'a> {
    /// The entity to add to.
    #[serde(rename = "entityName")]
    pub entity_name: &'a str,
    /// Observations to add.
    #[serde(borrow)]
    pub contents: Vec<&'a str>,
}

/// One item of delete_observations.
#[derive(Deserialize, Debug, Clone)]
pub struct DeleteObsArg<'a> {
    /// The entity to delete from.
    #[serde(rename = "entityName")]
    pub entity_name: &'a str,
    /// Observations to delete.
    #[serde(borrow)]
    pub observations: Vec<&'a str>,
}

/// create_entities' arguments.
#[derive(Deserialize)]
pub struct CreateEntities<'a> {
    /// The entities.
    #[serde(borrow)]
    pub entities: Vec<EntityArg<'a>>,
}

/// create_relations' and delete_relations' arguments.
#[derive(Deserialize)]
pub struct Relations<'a> {
    /// The relations.
    #[serde(borrow)]
    pub relations: Vec<RelationArg<'a>>,
}

/// add_observations' arguments.
#[derive(Deserialize)]
pub struct AddObservations<'a> {
    /// The additions.
    #[serde(borrow)]
    pub observations: Vec<AddArg<'a>>,
}

/// delete_entities' arguments.
#[derive(Deserialize)]
pub struct DeleteEntities<'a> {
    /// Names to delete.
    #[serde(rename = "entityNames", borrow)]
    pub entity_names: Vec<&'a str>,
}

/// delete_observations' arguments.
#[derive(Deserialize)]
pub struct DeleteObservations<'a> {
    /// The deletions.
    #[serde(borrow)]
    pub deletions: Vec<DeleteObsArg<'a>>,
}

/// search_nodes' arguments.
#[derive(Deserialize)]
pub struct SearchNodes<'a> {
    /// The query.
    pub query: &'a str,
}

/// open_nodes' arguments.
#[derive(Deserialize)]
pub struct OpenNodes<'a> {
    /// Names to open.
    #[serde(borrow)]
    pub names: Vec<&'a str>,
}
