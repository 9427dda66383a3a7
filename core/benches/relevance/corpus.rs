//! The deterministic conversation generator: sessions between pairs of personas, facts
//! planted in some turns, questions whose answering turns are known, and filler around them.
//!
//! - **Personas and sessions.** Six personas (`vocab::PERSONAS`). 140 sessions, each between
//!   two of them drawn at random, 28 alternating turns, dated from 8 May 2023 on, 1–4 days
//!   apart. `--entities N` adds sessions of filler (same mix, later dates) up to N entities.
//! - **Facts.** Nine kinds (`vocab::KINDS`), each a list of keys (a car, a sister, a support
//!   group meeting, ...) with synonym rows and values: purchases, pets, opinions ("what did
//!   X say about ..."), favourites, reasons for quitting something, relatives' jobs and
//!   cities, dated events, and collections (instruments, sports, countries, languages,
//!   books, dishes). A persona gets at most one fact per key group, so no question has an
//!   answer the generator does not know about.
//! - **Questions** (360), each about its own fact:
//!   - single-hop (120): one turn states the fact; the question names the key in the
//!     answer's own words, everything else (template, verb) is drawn anew;
//!   - multi-hop (80): two turns in two sessions. A relative is introduced by name in one
//!     ("Had dinner with my uncle Mateo ...") and the fact is stated by name only in a later
//!     one ("Mateo is employed as a firefighter now ..."), or a collection has an item in
//!     each ("I've been practicing the violin" / "Finally played a whole song on the
//!     cello"); either turn counts as a hit, and both@10 is reported;
//!   - temporal (80): "When did X ...?"; the turn tells the event with a relative time
//!     ("yesterday"), its entity holds the session's date;
//!   - paraphrase (80): like single-hop, but the key and the verb are taken from other
//!     synonym rows than the answer's ("tortoise" / "turtle", "bought" / "splurged on",
//!     "adoption agency" / "organization that matches kids with new parents"), and of 16
//!     such drafts the one sharing the fewest content words with the answer is kept.
//!
//!   Answers and questions are written from separate template lists; a question never sees
//!   the answer's text except to count shared words (`Question::overlap`, printed).
//! - **Filler.** Every other turn: chit-chat, often naming the partner (40%); small talk that
//!   reuses the questions' vocabulary (work, name, date, favorite, ...) without answering
//!   anything (27%); third parties doing the facts' things ("My colleague stopped going to
//!   the choir too", 20%); and questions from the partner ("Caroline, what does your uncle
//!   do again?", 13%). Besides, 30% of the stating turns are preceded by the partner's
//!   question about it, and half of the facts are mentioned again later by the same persona
//!   without the answer ("I keep thinking about the day I went to a support group").
//!
//! Everything comes from one seed. The planted facts, their sessions and the questions are
//! drawn from one stream (`plan`) over the first [`CORE_SESSIONS`] sessions; the filler text
//! and any extra sessions from another (`fill`), so a bigger corpus keeps the same kinds of
//! questions and only adds conversation around them.

use std::collections::HashSet;

use crate::vocab::{self, KINDS, Key, Kind, PERSONAS, Shape};

/// Sessions that carry the planted facts (and filler).
pub const CORE_SESSIONS: usize = 140;
/// Turns per session in the default corpus.
pub const TURNS_PER_SESSION: usize = 28;
/// Fewest turns per session `--entities` may ask for.
const MIN_TURNS_PER_SESSION: usize = 20;

/// Question categories.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Category {
    SingleHop,
    MultiHop,
    Temporal,
    Paraphrase,
}

impl Category {
    pub const ALL: [Category; 4] = [
        Category::SingleHop,
        Category::MultiHop,
        Category::Temporal,
        Category::Paraphrase,
    ];

    pub fn label(self) -> &'static str {
        match self {
            Category::SingleHop => "single-hop",
            Category::MultiHop => "multi-hop",
            Category::Temporal => "temporal",
            Category::Paraphrase => "paraphrase",
        }
    }

    /// Questions generated in this category.
    fn count(self) -> usize {
        match self {
            Category::SingleHop => 120,
            Category::MultiHop => 80,
            Category::Temporal => 80,
            Category::Paraphrase => 80,
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Random numbers
// ---------------------------------------------------------------------------------------------

/// xorshift64*.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        // splitmix64 of the seed: never zero for the seeds anyone types.
        let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        Rng((z ^ (z >> 31)) | 1)
    }

    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    pub fn chance(&mut self, p: f64) -> bool {
        ((self.next() >> 11) as f64 / (1u64 << 53) as f64) < p
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }

    /// One of some templates or words.
    pub fn word(&mut self, items: &[&'static str]) -> &'static str {
        items[self.below(items.len())]
    }

    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            items.swap(i, self.below(i + 1));
        }
    }

    /// An index other than `not` in `0..n` if there is one.
    fn other_than(&mut self, n: usize, not: usize) -> usize {
        if n < 2 {
            return 0;
        }
        let i = self.below(n - 1);
        if i >= not { i + 1 } else { i }
    }
}

// ---------------------------------------------------------------------------------------------
// Corpus
// ---------------------------------------------------------------------------------------------

/// One dialogue turn.
#[derive(Clone, Debug)]
pub struct Turn {
    pub speaker: usize,
    pub text: String,
    /// What the generator made it as: answer, ask, follow, other, small-talk, chit-chat.
    pub role: &'static str,
}

pub struct Session {
    pub date: String,
    pub pair: [usize; 2],
    /// Which of the pair speaks first; they alternate.
    start: usize,
    pub turns: Vec<Option<Turn>>,
}

impl Session {
    pub fn speaker(&self, i: usize) -> usize {
        self.pair[(i + self.start) % 2]
    }

    pub fn partner(&self, persona: usize) -> usize {
        if self.pair[0] == persona {
            self.pair[1]
        } else {
            self.pair[0]
        }
    }

    pub fn turn(&self, i: usize) -> &Turn {
        self.turns[i].as_ref().expect("every turn is written")
    }
}

/// A turn's entity name.
pub fn turn_name(session: usize, index: usize) -> String {
    format!("session-{}-turn-{}", session + 1, index + 1)
}

pub fn session_name(session: usize) -> String {
    format!("session-{}", session + 1)
}

pub struct Question {
    pub category: Category,
    pub kind: &'static str,
    pub key: &'static str,
    pub persona: usize,
    pub text: String,
    /// The answering turns (session, index): one, or two for multi-hop.
    pub answers: Vec<(usize, usize)>,
    /// Content words the question shares with its answering turn(s) (the most with any
    /// one), persona names and stop words aside.
    pub overlap: usize,
}

pub struct Corpus {
    pub seed: u64,
    pub sessions: Vec<Session>,
    pub questions: Vec<Question>,
}

impl Corpus {
    pub fn turn_count(&self) -> usize {
        self.sessions.iter().map(|s| s.turns.len()).sum()
    }

    pub fn entity_count(&self) -> usize {
        PERSONAS.len() + self.sessions.len() + self.turn_count()
    }

    pub fn answer_text(&self, (s, i): (usize, usize)) -> &str {
        &self.sessions[s].turn(i).text
    }
}

// ---------------------------------------------------------------------------------------------
// Templates
// ---------------------------------------------------------------------------------------------

type Vars = Vec<(&'static str, String)>;

/// Fills `{name}` placeholders from `vars` (panics on an unknown one: a template bug).
fn fill_in(template: &str, vars: &Vars) -> String {
    let mut out = String::with_capacity(template.len() + 32);
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let close = open + rest[open..].find('}').expect("closed placeholder");
        let name = &rest[open + 1..close];
        let value = vars
            .iter()
            .rev()
            .find(|(k, _)| *k == name)
            .unwrap_or_else(|| panic!("no value for {{{name}}} in {template:?}"));
        out.push_str(&value.1);
        rest = &rest[close + 1..];
    }
    out.push_str(rest);
    out
}

/// A template filled in, first letter capitalised.
fn render(template: &str, vars: &Vars) -> String {
    capitalize(&fill_in(template, vars))
}

fn capitalize(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) => c.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

fn article(word: &str) -> String {
    let vowel = word
        .chars()
        .next()
        .is_some_and(|c| "aeiouAEIOU".contains(c));
    format!("{} {word}", if vowel { "an" } else { "a" })
}

/// Part `side` of a synonym row (`answer|question|third`), the first when missing.
fn side(row: &str, side: usize) -> &str {
    row.split('|')
        .nth(side)
        .unwrap_or_else(|| row.split('|').next().unwrap_or(row))
}

const ANSWER: usize = 0;
const QUESTION: usize = 1;
const THIRD: usize = 2;

/// Lowercase alphanumeric words.
pub fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
}

fn content_words(text: &str) -> HashSet<String> {
    words(text)
        .filter(|w| !vocab::STOPWORDS.contains(&w.as_str()))
        .filter(|w| !PERSONAS.iter().any(|p| p.name.eq_ignore_ascii_case(w)))
        .collect()
}

fn overlap(question: &str, answer: &str) -> usize {
    let a = content_words(answer);
    content_words(question).intersection(&a).count()
}

// ---------------------------------------------------------------------------------------------
// Dates
// ---------------------------------------------------------------------------------------------

fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn date_string(days: i64) -> String {
    const MONTHS: [&str; 12] = [
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
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{d} {} {y}", MONTHS[(m - 1) as usize])
}

// ---------------------------------------------------------------------------------------------
// Generation
// ---------------------------------------------------------------------------------------------

/// A fact to plant: a kind, one of its keys, a persona.
#[derive(Clone, Copy)]
struct Slot {
    kind: usize,
    key: usize,
    persona: usize,
}

impl Slot {
    fn kind(&self) -> &'static Kind {
        &KINDS[self.kind]
    }

    fn key(&self) -> &'static Key {
        &self.kind().keys[self.key]
    }
}

struct Planter {
    sessions: Vec<Session>,
    plan: Rng,
    used: HashSet<(usize, &'static str)>,
    /// Relatives' names not used yet: female, male.
    names: [Vec<&'static str>; 2],
}

/// Whether a relative (or pet) is a she.
fn is_she(pron: u8, rng: &mut Rng) -> bool {
    match pron {
        1 => true,
        2 => false,
        _ => rng.chance(0.5),
    }
}

/// Pronouns: subject, object, possessive.
fn pronouns(she: bool) -> [&'static str; 3] {
    if she {
        ["she", "her", "her"]
    } else {
        ["he", "him", "his"]
    }
}

impl Planter {
    /// A free turn of `persona` in a core session within `sessions` other than `not`.
    fn place(
        &mut self,
        persona: usize,
        sessions: std::ops::Range<usize>,
        not: Option<usize>,
    ) -> Option<(usize, usize)> {
        let candidates: Vec<usize> = sessions
            .filter(|&s| Some(s) != not && self.sessions[s].pair.contains(&persona))
            .filter(|&s| self.free(s, persona).next().is_some())
            .collect();
        if candidates.is_empty() {
            return None;
        }
        let s = *self.plan.pick(&candidates);
        let free: Vec<usize> = self.free(s, persona).collect();
        Some((s, *self.plan.pick(&free)))
    }

    fn free(&self, s: usize, persona: usize) -> impl Iterator<Item = usize> + '_ {
        let session = &self.sessions[s];
        (0..session.turns.len())
            .filter(move |&i| session.turns[i].is_none() && session.speaker(i) == persona)
    }

    fn put(&mut self, (s, i): (usize, usize), speaker: usize, text: String, role: &'static str) {
        debug_assert!(self.sessions[s].turns[i].is_none());
        debug_assert_eq!(self.sessions[s].speaker(i), speaker);
        self.sessions[s].turns[i] = Some(Turn {
            speaker,
            text,
            role,
        });
    }

    /// The persona's own variables for an answer.
    fn persona_vars(&mut self, persona: usize) -> Vars {
        let p = &PERSONAS[persona];
        let tail = self.plan.pick(vocab::TAILS).to_string();
        vec![
            ("P", p.name.to_string()),
            ("she", p.she.to_string()),
            ("her", p.her.to_string()),
            ("lead", self.plan.pick(vocab::LEADS).to_string()),
            ("when", self.plan.pick(vocab::WHEN).to_string()),
            ("day", self.plan.pick(vocab::DAYS).to_string()),
            ("Tail", capitalize(&tail)),
            ("tail", tail),
        ]
    }

    /// Plants the answering turn(s) of one question and writes the question.
    fn plant(&mut self, slot: Slot, category: Category) -> Result<Question, String> {
        let kind = slot.kind();
        let key = slot.key();
        let persona = slot.persona;
        let mut vars = self.persona_vars(persona);
        let a_row = self.plan.below(key.forms.len().max(1));
        let v_row = self.plan.below(kind.verbs.len().max(1));
        if let Some(form) = key.forms.get(a_row) {
            let k = fill_in(side(form, ANSWER), &vars);
            vars.push(("aK", article(&k)));
            vars.push(("K", k));
        }
        if let Some(verb) = kind.verbs.get(v_row) {
            vars.push(("v", side(verb, ANSWER).to_string()));
            vars.push(("v3", side(verb, THIRD).to_string()));
        }
        let values = if key.values.is_empty() {
            kind.values
        } else {
            key.values
        };
        if !values.is_empty() {
            let value = *self.plan.pick(values);
            vars.push(("V", value.to_string()));
            vars.push(("aV", article(value)));
            vars.push(("Vcap", capitalize(value)));
        }
        let she = is_she(key.pron, &mut self.plan);
        let [rs, ro, rp] = pronouns(she);
        vars.extend([
            ("rs", rs.to_string()),
            ("ro", ro.to_string()),
            ("rp", rp.to_string()),
        ]);

        // The answering turns, in the order they are placed.
        let texts: Vec<String> = match (kind.shape, category) {
            (Shape::Relative, Category::MultiHop) => {
                let name = self.names[usize::from(!she)]
                    .pop()
                    .ok_or("out of relatives' names")?;
                vars.push(("N", name.to_string()));
                vec![
                    render(self.plan.word(kind.intros), &vars),
                    render(self.plan.word(kind.seconds), &vars),
                ]
            }
            (Shape::Collection, _) => {
                let first = self.plan.below(key.values.len());
                let second = self.plan.other_than(key.values.len(), first);
                let t1 = self.plan.below(key.answers.len());
                let t2 = self.plan.other_than(key.answers.len(), t1);
                [(first, t1), (second, t2)]
                    .iter()
                    .map(|&(v, t)| {
                        let mut vars = vars.clone();
                        vars.push(("V", key.values[v].to_string()));
                        render(key.answers[t], &vars)
                    })
                    .collect()
            }
            (Shape::Relative, _) => {
                let name = self.names[usize::from(!she)]
                    .pop()
                    .ok_or("out of relatives' names")?;
                vars.push(("N", name.to_string()));
                vec![render(self.plan.word(kind.answers), &vars)]
            }
            _ => vec![render(self.plan.word(kind.answers), &vars)],
        };

        // Where they go: distinct core sessions, in order (an introduction comes first).
        let mut places: Vec<(usize, usize)> = Vec::new();
        for _ in &texts {
            let not = places.first().map(|p| p.0);
            let at = self
                .place(persona, 0..CORE_SESSIONS, not)
                .ok_or_else(|| format!("no room for {} in the core sessions", kind.id))?;
            places.push(at);
        }
        places.sort_unstable();
        for (at, text) in places.iter().zip(&texts) {
            self.put(*at, persona, text.clone(), "answer");
        }

        // The partner asks about it just before, sometimes (as people do).
        let stated = *places.last().expect("an answer");
        if self.plan.chance(0.3)
            && stated.1 > 0
            && self.sessions[stated.0].turns[stated.1 - 1].is_none()
        {
            let partner = self.sessions[stated.0].partner(persona);
            let addr = if self.plan.chance(0.5) {
                format!("{}, ", PERSONAS[persona].name)
            } else {
                String::new()
            };
            if let Some(text) = ask(&mut self.plan, slot, addr) {
                self.put((stated.0, stated.1 - 1), partner, text, "ask");
            }
        }

        // A later mention of the same thing by the same persona, without the answer.
        if !kind.follows.is_empty() && self.plan.chance(0.5) {
            let mut vars = self.persona_vars(persona);
            if let Some(form) = key.forms.get(self.plan.below(key.forms.len())) {
                let k = fill_in(side(form, ANSWER), &vars);
                vars.push(("aK", article(&k)));
                vars.push(("K", k));
            }
            let text = render(self.plan.word(kind.follows), &vars);
            if let Some(at) = self.place(persona, stated.0 + 1..CORE_SESSIONS, None) {
                self.put(at, persona, text, "follow");
            }
        }

        // The question: its own template and synonym rows.
        let answers: Vec<&str> = texts.iter().map(String::as_str).collect();
        let text = match category {
            Category::Paraphrase => {
                let mut best: Option<(usize, String)> = None;
                for _ in 0..16 {
                    let q_row = self.plan.other_than(key.forms.len(), a_row);
                    let qv_row = self.plan.other_than(kind.verbs.len(), v_row);
                    let q = question(&mut self.plan, slot, q_row, qv_row);
                    let o = answers.iter().map(|a| overlap(&q, a)).max().unwrap_or(0);
                    if best.as_ref().is_none_or(|(b, _)| o < *b) {
                        best = Some((o, q));
                    }
                }
                best.expect("candidates").1
            }
            // Single-hop: the key in the answer's own words (as a reader who saw the turn
            // would ask), everything else drawn anew.
            Category::SingleHop => {
                let qv_row = self.plan.below(kind.verbs.len().max(1));
                question(&mut self.plan, slot, a_row, qv_row)
            }
            // Multi-hop and temporal: every row drawn anew (the same as the answer's by
            // chance only).
            _ => {
                let q_row = self.plan.below(key.forms.len().max(1));
                let qv_row = self.plan.below(kind.verbs.len().max(1));
                question(&mut self.plan, slot, q_row, qv_row)
            }
        };
        let overlap = answers.iter().map(|a| overlap(&text, a)).max().unwrap_or(0);
        Ok(Question {
            category,
            kind: kind.id,
            key: key.id,
            persona,
            text,
            answers: places,
            overlap,
        })
    }
}

/// Question-side variables for a key: `{K}` and `{v}` from the given rows.
fn question_vars(slot: Slot, q_row: usize, qv_row: usize, mut vars: Vars) -> Vars {
    let kind = slot.kind();
    let key = slot.key();
    if let Some(form) = key.forms.get(q_row) {
        let k = fill_in(side(form, QUESTION), &vars);
        vars.push(("aK", article(&k)));
        vars.push(("K", k));
    }
    if let Some(verb) = kind.verbs.get(qv_row) {
        vars.push(("av", article(side(verb, QUESTION))));
        vars.push(("v", side(verb, QUESTION).to_string()));
        vars.push(("v3", side(verb, THIRD).to_string()));
    }
    vars
}

fn question(rng: &mut Rng, slot: Slot, q_row: usize, qv_row: usize) -> String {
    let kind = slot.kind();
    let key = slot.key();
    let p = &PERSONAS[slot.persona];
    let vars = vec![
        ("P", p.name.to_string()),
        ("she", p.she.to_string()),
        ("her", p.her.to_string()),
    ];
    let vars = question_vars(slot, q_row, qv_row, vars);
    let templates = if key.questions.is_empty() {
        kind.questions
    } else {
        key.questions
    };
    render(rng.word(templates), &vars)
}

/// A partner's question about a key (no answer in it), or `None` if the kind has none.
fn ask(rng: &mut Rng, slot: Slot, addr: String) -> Option<String> {
    let kind = slot.kind();
    let key = slot.key();
    let templates = if key.asks.is_empty() {
        kind.asks
    } else {
        key.asks
    };
    if templates.is_empty() {
        return None;
    }
    let vars = vec![("Addr", addr), ("her", "your".to_string())];
    let q_row = rng.below(key.forms.len().max(1));
    let qv_row = rng.below(kind.verbs.len().max(1));
    let vars = question_vars(slot, q_row, qv_row, vars);
    Some(render(rng.word(templates), &vars))
}

/// A third party and a key's vocabulary (no answer in it).
fn other(rng: &mut Rng, slot: Slot) -> Option<String> {
    let kind = slot.kind();
    let key = slot.key();
    let templates = if key.others.is_empty() {
        kind.others
    } else {
        key.others
    };
    if templates.is_empty() {
        return None;
    }
    let values = if key.values.is_empty() {
        kind.values
    } else {
        key.values
    };
    let mut vars = vec![
        ("other", rng.pick(vocab::OTHERS).to_string()),
        ("her", "their".to_string()),
    ];
    if !values.is_empty() {
        let v = *rng.pick(values);
        vars.push(("V2", v.to_string()));
        vars.push(("aV2", article(v)));
    }
    let q_row = rng.below(key.forms.len().max(1));
    let qv_row = rng.below(kind.verbs.len().max(1));
    let vars = question_vars(slot, q_row, qv_row, vars);
    Some(render(rng.word(templates), &vars))
}

fn random_slot(rng: &mut Rng) -> Slot {
    let kind = rng.below(KINDS.len());
    Slot {
        kind,
        key: rng.below(KINDS[kind].keys.len()),
        persona: 0,
    }
}

/// The collection of instruments' values (for small talk).
fn instruments() -> &'static [&'static str] {
    KINDS
        .iter()
        .flat_map(|k| k.keys)
        .find(|k| k.id == "instruments")
        .map_or(&[], |k| k.values)
}

/// A filler turn by `speaker` talking to `partner`.
fn filler(rng: &mut Rng, speaker: usize, partner: usize) -> Turn {
    let third = {
        let others: Vec<usize> = (0..PERSONAS.len())
            .filter(|&p| p != speaker && p != partner)
            .collect();
        PERSONAS[*rng.pick(&others)].name
    };
    let roll = rng.below(100);
    let (text, role) = if roll < 40 {
        let vars = vec![("Partner", PERSONAS[partner].name.to_string())];
        (render(rng.word(vocab::CHITCHAT), &vars), "chit-chat")
    } else if roll < 67 {
        let job = *rng.pick(vocab::JOBS);
        let vars = vec![
            ("snack", rng.pick(vocab::SMALL_SNACKS).to_string()),
            ("animal", rng.pick(vocab::SMALL_ANIMALS).to_string()),
            ("other", rng.pick(vocab::OTHERS).to_string()),
            ("Third", third.to_string()),
            ("thing", rng.pick(vocab::SMALL_THINGS).to_string()),
            ("city", rng.pick(vocab::CITIES).to_string()),
            ("job", job.to_string()),
            ("aJob", article(job)),
            ("country", rng.pick(vocab::SMALL_COUNTRIES).to_string()),
            ("relative", rng.pick(vocab::SMALL_RELATIVES).to_string()),
            ("instrument", rng.pick(instruments()).to_string()),
            ("day", rng.pick(vocab::DAYS).to_string()),
        ];
        (render(rng.word(vocab::SMALL_TALK), &vars), "small-talk")
    } else if roll < 87 {
        loop {
            let slot = random_slot(rng);
            if let Some(text) = other(rng, slot) {
                break (text, "other");
            }
        }
    } else {
        loop {
            let slot = random_slot(rng);
            let addr = if rng.chance(0.4) {
                format!("{}, ", PERSONAS[partner].name)
            } else {
                String::new()
            };
            if let Some(text) = ask(rng, slot, addr) {
                break (text, "ask");
            }
        }
    };
    Turn {
        speaker,
        text,
        role,
    }
}

/// Generates the corpus. `entities`: the total number of entities wanted (personas +
/// sessions + turns), at least the default's; `None` for the default corpus.
pub fn generate(seed: u64, entities: Option<usize>) -> Result<Corpus, String> {
    let personas = PERSONAS.len();
    let (session_count, turn_count) = match entities {
        None => (CORE_SESSIONS, CORE_SESSIONS * TURNS_PER_SESSION),
        Some(n) => {
            let sessions = CORE_SESSIONS.max(n.saturating_sub(personas) / (TURNS_PER_SESSION + 1));
            let turns = n.saturating_sub(personas + sessions);
            if turns < sessions * MIN_TURNS_PER_SESSION {
                let min = personas + CORE_SESSIONS * (MIN_TURNS_PER_SESSION + 1);
                return Err(format!("--entities {n} is too small (at least {min})"));
            }
            (sessions, turns)
        }
    };
    let mut plan = Rng::new(seed);
    let mut fill = Rng::new(seed ^ 0xF111_F111_F111_F111);

    let mut sessions = Vec::with_capacity(session_count);
    let mut day = days_from_civil(2023, 5, 8);
    for s in 0..session_count {
        let rng = if s < CORE_SESSIONS {
            &mut plan
        } else {
            &mut fill
        };
        if s > 0 {
            day += 1 + rng.below(4) as i64;
        }
        let a = rng.below(personas);
        let b = rng.other_than(personas, a);
        let start = rng.below(2);
        let len = turn_count / session_count + usize::from(s < turn_count % session_count);
        sessions.push(Session {
            date: date_string(day),
            pair: [a, b],
            start,
            turns: vec![None; len],
        });
    }

    let mut names = [vocab::FEMALE_NAMES.to_vec(), vocab::MALE_NAMES.to_vec()];
    for list in &mut names {
        plan.shuffle(list);
    }
    let mut planter = Planter {
        sessions,
        plan,
        used: HashSet::new(),
        names,
    };

    // Which facts each category asks about: shuffled (kind, key, persona) slots, one fact
    // per persona and key group.
    let slots = |shapes: &[Shape]| -> Vec<Slot> {
        let mut out = Vec::new();
        for (k, kind) in KINDS.iter().enumerate() {
            if !shapes.contains(&kind.shape) {
                continue;
            }
            for key in 0..kind.keys.len() {
                for persona in 0..personas {
                    out.push(Slot {
                        kind: k,
                        key,
                        persona,
                    });
                }
            }
        }
        out
    };
    let plans: [(Category, Vec<Slot>); 4] = [
        (Category::Temporal, slots(&[Shape::Event])),
        (
            Category::MultiHop,
            slots(&[Shape::Relative, Shape::Collection]),
        ),
        (
            Category::SingleHop,
            slots(&[Shape::Single, Shape::Relative]),
        ),
        (
            Category::Paraphrase,
            slots(&[Shape::Single, Shape::Relative]),
        ),
    ];
    let mut questions = Vec::new();
    for (category, mut pool) in plans {
        // Spread evenly over the kinds: shuffled, then taken from each kind in turn.
        planter.plan.shuffle(&mut pool);
        let mut queues: Vec<std::collections::VecDeque<Slot>> =
            vec![Default::default(); KINDS.len()];
        for slot in pool {
            queues[slot.kind].push_back(slot);
        }
        let mut made = 0;
        'fill: while made < category.count() {
            let mut progress = false;
            for queue in &mut queues {
                while let Some(slot) = queue.pop_front() {
                    if planter.used.insert((slot.persona, slot.key().group)) {
                        questions.push(planter.plant(slot, category)?);
                        made += 1;
                        progress = true;
                        break;
                    }
                }
                if made == category.count() {
                    break 'fill;
                }
            }
            if !progress {
                break;
            }
        }
        if made < category.count() {
            return Err(format!(
                "only {made} {} questions fit the vocabulary",
                category.label()
            ));
        }
    }

    // Filler everywhere else.
    let mut sessions = planter.sessions;
    for session in &mut sessions {
        for i in 0..session.turns.len() {
            if session.turns[i].is_none() {
                let speaker = session.speaker(i);
                let partner = session.partner(speaker);
                session.turns[i] = Some(filler(&mut fill, speaker, partner));
            }
        }
    }
    Ok(Corpus {
        seed,
        sessions,
        questions,
    })
}
