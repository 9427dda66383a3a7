//! The deterministic workload data, after `tests/bench/mcpbench.py`'s generator: entities
//! of four types (person, company, project, place: weights 50/20/20/10) with template
//! observations, rare words planted in one to five entities each, and typed relations
//! without duplicates. Everything follows from the seed (not Python's stream: the shapes
//! and sizes match, the draws do not).

use std::collections::{BTreeSet, HashSet};

use serde_json::{Value, json};

/// A small deterministic generator (splitmix64): the same seed gives the same workload on
/// every machine and in every version of this tool.
pub struct Rng(u64);

impl Rng {
    /// A generator started from `seed`.
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }

    /// A number in `lo..=hi`.
    pub fn between(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }

    /// One element of a non-empty slice.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }

    /// `k` distinct indices in `0..n` (all of them, shuffled, when `k >= n`).
    pub fn sample(&mut self, n: usize, k: usize) -> Vec<usize> {
        let k = k.min(n);
        if k * 4 < n {
            let mut seen = HashSet::with_capacity(k);
            let mut out = Vec::with_capacity(k);
            while out.len() < k {
                let i = self.below(n);
                if seen.insert(i) {
                    out.push(i);
                }
            }
            out
        } else {
            let mut all: Vec<usize> = (0..n).collect();
            for i in 0..k {
                let j = i + self.below(n - i);
                all.swap(i, j);
            }
            all.truncate(k);
            all
        }
    }
}

const SURNAMES: &[&str] = &[
    "Alvarez",
    "Bianchi",
    "Chen",
    "Dubois",
    "Eriksen",
    "Fischer",
    "Garcia",
    "Haddad",
    "Ivanova",
    "Jensen",
    "Kowalski",
    "Larsen",
    "Moreau",
    "Nakamura",
    "Okafor",
    "Petrov",
    "Quinn",
    "Rossi",
    "Schmidt",
    "Tanaka",
    "Umarov",
    "Varga",
    "Weber",
    "Xu",
    "Yilmaz",
    "Zhang",
    "Novak",
    "Silva",
    "Kumar",
    "Mendes",
    "Horvat",
    "Lindqvist",
    "OBrien",
    "Patel",
    "Costa",
    "Andersen",
    "Becker",
    "Castillo",
    "Dimitrov",
    "Esposito",
    "Ferreira",
    "Gruber",
    "Hoffmann",
    "Ito",
    "Jovanovic",
    "Keller",
    "Lopez",
    "Muller",
    "Nielsen",
    "Ortiz",
];
const COMPANY_WORDS: &[&str] = &[
    "Northwind",
    "Brightwater",
    "Ironbark",
    "Bluepeak",
    "Redstone",
    "Silverline",
    "Greenfield",
    "Oakridge",
    "Stonebridge",
    "Clearview",
    "Highland",
    "Riverbend",
    "Suncrest",
    "Windmill",
    "Harborview",
    "Maplewood",
    "Cedarline",
    "Goldleaf",
    "Fairhaven",
    "Westgate",
];
const COMPANY_SUFFIX: &[&str] = &[
    "Labs",
    "Logistics",
    "Systems",
    "Foods",
    "Energy",
    "Media",
    "Bank",
    "Robotics",
    "Health",
    "Studios",
];
const PROJECT_WORDS: &[&str] = &[
    "Falcon", "Orion", "Atlas", "Nebula", "Phoenix", "Kestrel", "Aurora", "Comet", "Titan", "Vega",
    "Mercury", "Lynx", "Polaris", "Zephyr", "Quasar", "Sierra", "Tundra", "Harbor", "Beacon",
    "Summit",
];
const CITIES: &[&str] = &[
    "Lisbon", "Oslo", "Nairobi", "Osaka", "Denver", "Krakow", "Porto", "Austin", "Dublin", "Seoul",
    "Lyon", "Quito", "Perth", "Tallinn", "Accra", "Hanoi", "Bergen", "Zagreb", "Leeds", "Cordoba",
];
const ROLES: &[&str] = &[
    "engineer",
    "designer",
    "manager",
    "analyst",
    "nurse",
    "teacher",
    "architect",
    "chef",
    "lawyer",
    "researcher",
    "accountant",
    "consultant",
    "developer",
    "writer",
    "photographer",
];
/// Hobbies, also used for the text of added observations.
pub const HOBBIES: &[&str] = &[
    "hiking",
    "chess",
    "cycling",
    "painting",
    "gardening",
    "climbing",
    "sailing",
    "baking",
    "running",
    "photography",
    "pottery",
    "fishing",
    "surfing",
    "knitting",
    "birdwatching",
];
/// Cities, also used for the text of added observations.
pub const PLACES: &[&str] = CITIES;
const LANGUAGES: &[&str] = &[
    "English",
    "Spanish",
    "Portuguese",
    "Japanese",
    "German",
    "French",
    "Swahili",
    "Polish",
    "Korean",
    "Italian",
];
const DRINKS: &[&str] = &["coffee", "tea", "mate", "cocoa", "kombucha", "lemonade"];
const PETS: &[&str] = &["dog", "cat", "parrot", "rabbit", "tortoise", "hamster"];
const INDUSTRIES: &[&str] = &[
    "logistics",
    "energy",
    "banking",
    "healthcare",
    "retail",
    "media",
    "robotics",
    "agriculture",
    "insurance",
    "gaming",
];
const TECH: &[&str] = &[
    "Rust",
    "Python",
    "Postgres",
    "Kafka",
    "React",
    "Go",
    "Redis",
    "Kubernetes",
    "SQLite",
    "Java",
];
const COMPONENTS: &[&str] = &[
    "backend",
    "frontend",
    "billing module",
    "search service",
    "data pipeline",
    "mobile app",
    "reporting layer",
    "auth service",
];
const STATUSES: &[&str] = &[
    "on track",
    "delayed",
    "in review",
    "paused",
    "ahead of schedule",
];
const MONTHS: &[&str] = &[
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];
const WEEKDAYS: &[&str] = &["Mon", "Tues", "Wednes", "Thurs", "Fri"];
const GEO: &[&str] = &[
    "river",
    "coast",
    "mountains",
    "old harbor",
    "central station",
    "university",
    "lake",
];
const FOODS: &[&str] = &[
    "seafood",
    "pastries",
    "street food",
    "cheese",
    "noodles",
    "barbecue",
    "olive oil",
];
const CLIMATES: &[&str] = &["mild", "rainy", "dry", "cold", "humid", "windy"];

const PERSON: &[&str] = &[
    "Works as a {role} at {company}",
    "Lives in {city} with a {pet}",
    "Enjoys {hobby} on weekends",
    "Speaks {lang} and {lang2}",
    "Prefers {drink} over {drink2}",
    "Joined the team in {month} {year}",
    "Studied {industry} management in {city}",
    "Mentors junior staff in {hobby} club",
];
const COMPANY: &[&str] = &[
    "Headquartered in {city}",
    "Founded in {year} by the {surname} family",
    "Operates in the {industry} sector",
    "Employs about {num} people",
    "Main product is built with {tech}",
    "Opened a new office in {city} in {month}",
    "Sponsors a local {hobby} league",
    "Quarterly revenue grew {pct} percent",
];
const PROJECT: &[&str] = &[
    "Uses {tech} for the {component}",
    "Deadline is in {month} {year}",
    "Led by a {role} from {city}",
    "Status is {status}",
    "Budget approved for {num} thousand euros",
    "Migrating the {component} to {tech}",
    "Weekly sync happens every {month2}day",
    "Depends on the {component} of another team",
];
const PLACE: &[&str] = &[
    "Located near the {geo}",
    "Population about {num} thousand",
    "Known for {food} and {hobby}",
    "Climate is mostly {climate}",
    "Has a direct train to {city}",
    "Hosts a {hobby} festival every {month}",
    "Popular with {role}s and students",
    "Local dialect borrows from {lang}",
];

/// Entity types with their weights and observation templates.
const TYPES: &[(&str, usize, &[&str])] = &[
    ("person", 50, PERSON),
    ("company", 20, COMPANY),
    ("project", 20, PROJECT),
    ("place", 10, PLACE),
];

/// Relation kinds: (relationType, from type, to type).
const REL_TYPES: &[(&str, &str, &str)] = &[
    ("works_at", "person", "company"),
    ("knows", "person", "person"),
    ("contributes_to", "person", "project"),
    ("lives_in", "person", "place"),
    ("located_in", "company", "place"),
    ("owns", "company", "project"),
    ("depends_on", "project", "project"),
    ("partner_of", "company", "company"),
];

/// The broad search queries (mcpbench's `BROAD_QUERIES`): common words that match many
/// entities.
pub const BROAD_QUERIES: &[&str] = &[
    "engineer",
    "coffee",
    "Lisbon",
    "hiking",
    "Rust",
    "team",
    "located",
    "project",
    "person",
    "company",
    "Works",
    "Founded",
    "Status",
    "Enjoys",
    "Oslo",
    "delayed",
    "backend",
    "Population",
    "Alvarez",
    "Northwind",
    "Falcon",
    "percent",
    "tea",
    "dog",
    "English",
];

/// At most this many rare words.
const MAX_RARE: usize = 200;
/// Each rare word is planted in 1..=this many entities.
const RARE_MAX_HITS: usize = 5;

const CONSONANTS: &[u8] = b"bdfgklmnprstvz";
const VOWELS: &[u8] = b"aeiou";

/// The `i`-th rare word: `zq` then consonant-vowel three times. All have the same length, so
/// none is a substring of another, and no common word contains `zq`.
pub fn rare_word(i: usize) -> String {
    let mut s = String::from("zq");
    let mut x = i;
    for _ in 0..3 {
        s.push(char::from(CONSONANTS[x % CONSONANTS.len()]));
        x /= CONSONANTS.len();
        s.push(char::from(VOWELS[x % VOWELS.len()]));
        x /= VOWELS.len();
    }
    s
}

/// One entity to create.
#[derive(Clone, Debug, PartialEq)]
pub struct Entity {
    /// Unique name, e.g. `Person 00042 Garcia`.
    pub name: String,
    /// person, company, project or place.
    pub entity_type: &'static str,
    /// Distinct observations.
    pub observations: Vec<String>,
}

impl Entity {
    /// The entity as `create_entities` takes it.
    pub fn to_json(&self) -> Value {
        json!({"name": self.name, "entityType": self.entity_type, "observations": self.observations})
    }
}

/// One relation to create.
#[derive(Clone, Debug, PartialEq)]
pub struct Relation {
    /// Source entity name.
    pub from: String,
    /// Target entity name.
    pub to: String,
    /// One of the typed kinds.
    pub relation_type: &'static str,
}

impl Relation {
    /// The relation as `create_relations` and `delete_relations` take it.
    pub fn to_json(&self) -> Value {
        json!({"from": self.from, "to": self.to, "relationType": self.relation_type})
    }
}

/// A rare word and the entities whose observations contain it.
#[derive(Clone, Debug, PartialEq)]
pub struct RareWord {
    /// The word, e.g. `zqbabab`.
    pub word: String,
    /// Names of the entities it was planted in: what searching it must return.
    pub entities: BTreeSet<String>,
}

/// The whole generated graph.
#[derive(Debug, PartialEq)]
pub struct Dataset {
    /// Entities in creation order.
    pub entities: Vec<Entity>,
    /// Relations in creation order, no two alike.
    pub relations: Vec<Relation>,
    /// Rare words (at most 200) with their expected search results.
    pub rare: Vec<RareWord>,
}

impl Dataset {
    /// `n` entities of `k` observations each and up to `m` relations, from `seed`.
    pub fn generate(n: usize, m: usize, k: usize, seed: u64) -> Dataset {
        let mut rng = Rng::new(seed);
        let width = n.saturating_sub(1).max(1).to_string().len().max(4);
        let total_weight: usize = TYPES.iter().map(|t| t.1).sum();
        let mut entities = Vec::with_capacity(n);
        let mut by_type: Vec<Vec<usize>> = vec![Vec::new(); TYPES.len()];
        for i in 0..n {
            let mut w = rng.below(total_weight);
            let mut t = 0;
            while w >= TYPES[t].1 {
                w -= TYPES[t].1;
                t += 1;
            }
            let (entity_type, _, templates) = TYPES[t];
            let name = match entity_type {
                "person" => format!("Person {i:0width$} {}", rng.pick(SURNAMES)),
                "company" => format!(
                    "Company {i:0width$} {} {}",
                    rng.pick(COMPANY_WORDS),
                    rng.pick(COMPANY_SUFFIX)
                ),
                "project" => format!("Project {i:0width$} {}", rng.pick(PROJECT_WORDS)),
                _ => format!("Place {i:0width$} {}", rng.pick(CITIES)),
            };
            let observations = observations(&mut rng, templates, k);
            entities.push(Entity {
                name,
                entity_type,
                observations,
            });
            by_type[t].push(i);
        }

        let mut rare = Vec::new();
        if n > 0 && k > 0 {
            let n_rare = MAX_RARE.min((n * k / 4).max(1));
            for r in 0..n_rare {
                let word = rare_word(r);
                let hits = rng.between(1, RARE_MAX_HITS.min(n));
                let mut names = BTreeSet::new();
                for e in rng.sample(n, hits) {
                    let entity = &mut entities[e];
                    let j = rng.below(entity.observations.len());
                    entity.observations[j].push_str(", see ticket ");
                    entity.observations[j].push_str(&word);
                    names.insert(entity.name.clone());
                }
                rare.push(RareWord {
                    word,
                    entities: names,
                });
            }
        }

        let mut relations = Vec::with_capacity(m);
        let mut seen = HashSet::with_capacity(m);
        let all: Vec<usize> = (0..n).collect();
        let mut attempts = 0;
        while relations.len() < m && attempts < m.saturating_mul(50) && n >= 2 {
            attempts += 1;
            let &(mut relation_type, from_type, to_type) = rng.pick(REL_TYPES);
            let type_index = |t: &str| TYPES.iter().position(|x| x.0 == t).unwrap_or(0);
            let mut from_pool = &by_type[type_index(from_type)];
            let mut to_pool = &by_type[type_index(to_type)];
            if from_pool.is_empty() || to_pool.is_empty() {
                from_pool = &all;
                to_pool = &all;
                relation_type = "related_to";
            }
            let a = *rng.pick(from_pool);
            let b = *rng.pick(to_pool);
            if a == b || !seen.insert((a, b, relation_type)) {
                continue;
            }
            relations.push(Relation {
                from: entities[a].name.clone(),
                to: entities[b].name.clone(),
                relation_type,
            });
        }
        Dataset {
            entities,
            relations,
            rare,
        }
    }
}

/// `k` distinct observations from an entity type's templates.
fn observations(rng: &mut Rng, templates: &[&str], k: usize) -> Vec<String> {
    let order = rng.sample(templates.len(), k);
    let mut out: Vec<String> = Vec::with_capacity(k);
    for j in 0..k {
        let mut text = fill(rng, templates[order[j % order.len()]]);
        if j >= templates.len() {
            text = format!("{text} (note {j})");
        }
        while out.contains(&text) {
            text.push_str(" again");
        }
        out.push(text);
    }
    out
}

/// A template with each `{placeholder}` replaced by a fresh draw.
fn fill(rng: &mut Rng, template: &str) -> String {
    let mut out = String::with_capacity(template.len() + 16);
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let Some(len) = rest[open..].find('}') else {
            break;
        };
        placeholder(rng, &rest[open + 1..open + len], &mut out);
        rest = &rest[open + len + 1..];
    }
    out.push_str(rest);
    out
}

/// Appends a value for the placeholder `key` (the key itself if unknown).
fn placeholder(rng: &mut Rng, key: &str, out: &mut String) {
    let word = |rng: &mut Rng, list: &[&str], out: &mut String| {
        let w: &&str = rng.pick(list);
        out.push_str(w);
    };
    match key {
        "role" => word(rng, ROLES, out),
        "company" => {
            word(rng, COMPANY_WORDS, out);
            out.push(' ');
            word(rng, COMPANY_SUFFIX, out);
        }
        "city" => word(rng, CITIES, out),
        "pet" => word(rng, PETS, out),
        "hobby" => word(rng, HOBBIES, out),
        "lang" | "lang2" => word(rng, LANGUAGES, out),
        "drink" | "drink2" => word(rng, DRINKS, out),
        "month" => word(rng, MONTHS, out),
        "month2" => word(rng, WEEKDAYS, out),
        "year" => out.push_str(&rng.between(1990, 2025).to_string()),
        "industry" => word(rng, INDUSTRIES, out),
        "surname" => word(rng, SURNAMES, out),
        "num" => out.push_str(&rng.between(5, 5000).to_string()),
        "tech" => word(rng, TECH, out),
        "pct" => out.push_str(&rng.between(1, 40).to_string()),
        "component" => word(rng, COMPONENTS, out),
        "status" => word(rng, STATUSES, out),
        "geo" => word(rng, GEO, out),
        "food" => word(rng, FOODS, out),
        "climate" => word(rng, CLIMATES, out),
        other => out.push_str(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_data_other_seed_other_data() {
        let a = Dataset::generate(500, 1500, 3, 7);
        let b = Dataset::generate(500, 1500, 3, 7);
        let c = Dataset::generate(500, 1500, 3, 8);
        assert_eq!(a, b);
        assert_ne!(a.entities, c.entities);
        assert_eq!(a.entities.len(), 500);
        assert_eq!(a.relations.len(), 1500);
    }

    #[test]
    fn names_and_relations_are_unique_and_templates_filled() {
        let d = Dataset::generate(2000, 6000, 3, 42);
        let names: HashSet<&str> = d.entities.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names.len(), d.entities.len());
        assert!(d.entities[42].name.starts_with(&format!(
            "{} 0042 ",
            match d.entities[42].entity_type {
                "person" => "Person",
                "company" => "Company",
                "project" => "Project",
                _ => "Place",
            }
        )));
        let rels: HashSet<(&str, &str, &str)> = d
            .relations
            .iter()
            .map(|r| (r.from.as_str(), r.to.as_str(), r.relation_type))
            .collect();
        assert_eq!(rels.len(), d.relations.len());
        assert!(d.relations.iter().all(|r| r.from != r.to
            && names.contains(r.from.as_str())
            && names.contains(r.to.as_str())));
        for e in &d.entities {
            assert_eq!(e.observations.len(), 3);
            let distinct: HashSet<&String> = e.observations.iter().collect();
            assert_eq!(distinct.len(), 3, "{e:?}");
            assert!(
                e.observations.iter().all(|o| !o.contains(['{', '}'])),
                "{e:?}"
            );
        }
        let persons = d
            .entities
            .iter()
            .filter(|e| e.entity_type == "person")
            .count();
        assert!((800..1200).contains(&persons), "{persons} persons of 2000");
    }

    #[test]
    fn rare_words_are_unique_and_found_exactly_where_planted() {
        let d = Dataset::generate(3000, 0, 3, 1);
        assert_eq!(d.rare.len(), 200);
        let words: HashSet<&str> = d.rare.iter().map(|r| r.word.as_str()).collect();
        assert_eq!(words.len(), 200);
        assert!((0..5000).map(rare_word).collect::<HashSet<_>>().len() == 5000);
        for r in &d.rare {
            assert_eq!(r.word.len(), 8);
            assert!((1..=5).contains(&r.entities.len()));
            let holders: BTreeSet<String> = d
                .entities
                .iter()
                .filter(|e| e.observations.iter().any(|o| o.contains(&r.word)))
                .map(|e| e.name.clone())
                .collect();
            assert_eq!(holders, r.entities, "{}", r.word);
        }
        assert!(Dataset::generate(10, 0, 3, 1).rare.len() == 7);
        assert!(Dataset::generate(10, 0, 0, 1).rare.is_empty());
    }

    #[test]
    fn sample_is_distinct_and_in_range() {
        let mut rng = Rng::new(3);
        for (n, k) in [(10, 3), (10, 10), (10, 20), (1000, 5), (0, 4)] {
            let s = rng.sample(n, k);
            assert_eq!(s.len(), k.min(n));
            assert_eq!(s.iter().collect::<HashSet<_>>().len(), s.len());
            assert!(s.iter().all(|&i| i < n));
        }
    }
}
