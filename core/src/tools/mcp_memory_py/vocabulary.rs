//! The Python seed's conventions, as data: one user's Spanish vocabulary of types,
//! statuses, relations and query words, and its thresholds. Its tools read them here, so a
//! convention changes in one place and no rule of the engine depends on it.

/// The default type of an entity.
pub const GENERIC: &str = "Generic";

/// The default status of an entity.
pub const ACTIVE: &str = "activo";

/// The status of an archived entity (never stale in the consolidation report).
pub const ARCHIVED: &str = "archivado";

/// How much each status lowers an entity's salience (others: not at all).
pub const STATUS_WEIGHTS: [(&str, f64); 3] =
    [("pausado", 0.85), ("completado", 0.7), ("archivado", 0.5)];

/// The kind of an observation that is metadata (an entity mostly of it is less salient).
pub const METADATA_KIND: &str = "metadata";

/// The observations an entity holds before it is too large to keep whole, by type (any
/// other type: [`DEFAULT_SPLIT_THRESHOLD`]).
pub const SPLIT_THRESHOLDS: [(&str, usize); 2] = [("Sesion", 15), ("Proyecto", 25)];

/// … of any other type.
pub const DEFAULT_SPLIT_THRESHOLD: usize = 20;

/// The relation from a whole to each of its parts.
pub const CONTAINS: &str = "contiene";

/// The relation from a part to its whole.
pub const PART_OF: &str = "parte_de";

/// Relation types that come in pairs: creating one creates the other the other way round,
/// with this context; ending one ends the other (its `INVERSE_RELATIONS`).
pub const INVERSES: [(&str, &str, &str); 2] = [
    (CONTAINS, PART_OF, "Inversa automática de contiene"),
    (PART_OF, CONTAINS, "Inversa automática de parte_de"),
];

/// Words too common to name a topic (Spanish, as its, and English), folded as
/// `token_list` folds them (no accents).
pub const TOPIC_STOP_WORDS: &[&str] = &[
    "about", "after", "algo", "algunas", "algunos", "ante", "antes", "been", "como", "contra",
    "cual", "cuando", "desde", "donde", "durante", "ella", "ellas", "ellos", "entre", "esta",
    "estaba", "estado", "estan", "estar", "estas", "este", "esto", "estos", "from", "fueron",
    "habia", "hasta", "have", "into", "mucho", "muchos", "muy", "nada", "nosotros", "nuestra",
    "nuestro", "otra", "otras", "otro", "otros", "para", "pero", "poco", "porque", "quien",
    "quienes", "sobre", "some", "tambien", "tanto", "than", "that", "their", "them", "then",
    "there", "these", "they", "this", "tiene", "tienen", "todo", "todos", "unos", "were", "what",
    "when", "which", "with", "would", "your",
];

/// How its query routing weighs phrases (`detect_query_type`): each phrase found adds
/// its weight; 2 or more is a factual query, -2 or less an exploratory one.
pub const ROUTING_PHRASES: [(&str, i32); 14] = [
    ("qué es", 2),
    ("definición", 2),
    ("cómo funciona", 2),
    ("es un ", 2),
    ("es una ", 2),
    ("relación", 1),
    ("diferencia", 1),
    ("ejemplos", 1),
    ("comparar", 1),
    ("explícame", -2),
    ("relación entre", -2),
    ("dime todo", -2),
    ("cuentame", -2),
    ("qué piensas", -2),
];
