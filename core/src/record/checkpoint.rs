//! A checkpoint: the whole graph restated at a point of the log, in a layout that loads
//! without re-deciding anything, so that opening a memory starts at its last checkpoint
//! instead of replaying every change before it.
//!
//! A checkpoint changes nothing. Written after other entries, it restates the state they
//! build (a reader that applied them skips it); as a log's first entry (a compacted log) it
//! is the state history starts from. Every string is written once, in
//! [`Checkpoint::strings`]; everything else refers to strings by index ([`Str`], or
//! [`OptStr`] where a string may be absent), so loading interns each string once.
//!
//! On the wire a checkpoint is the tag [`CHECKPOINT`] (the record variant after the
//! stamped change), then the postcard encoding of [`Checkpoint`]. Like records, its layout is
//! the file format's: fields are never reordered or removed. It is read by a decoder written
//! for it ([`read_checkpoint`]: megabytes at every start, a third of the time serde's visitors took),
//! which hands each row to a [`Visit`] as it reads it (loading a graph holds no rows), and
//! which the tests hold to postcard's reading of the same bytes.

use alloc::vec::Vec;
#[cfg(test)]
use serde::Deserialize;
use serde::Serialize;

use super::{DecodeError, Op, decode_all};
use crate::model::Millis;

/// The wire tag of a checkpoint (records are variants 0–7).
pub const CHECKPOINT: u8 = 8;

/// A string of a checkpoint: its index in [`Checkpoint::strings`].
pub type Str = u32;

/// A string that may be absent: its index plus one, `0` for none.
pub type OptStr = u32;

/// The graph's whole state (see the module's docs).
#[derive(Serialize, Debug, PartialEq, Clone, Default)]
#[cfg_attr(test, derive(Deserialize))]
pub struct Checkpoint<'a> {
    /// Every string the graph holds, each once.
    #[cfg_attr(test, serde(borrow))]
    pub strings: Vec<&'a str>,
    /// The latest time any change carried.
    pub last_at: Millis,
    /// The table of who made changes, in order.
    pub agents: Vec<AgentRow>,
    /// Entities in order.
    pub entities: Vec<EntityRow>,
    /// Every entity's observations, entity after entity: its current ones in order, then
    /// its superseded ones in the order they were superseded.
    pub facts: Vec<FactRow>,
    /// Every entity's tags, entity after entity.
    pub tags: Vec<Str>,
    /// Relations that hold, in order.
    pub relations: Vec<RelationRow>,
    /// Relations that ended, in the order they ended, with when.
    pub ended: Vec<(RelationRow, Millis)>,
    /// Reflections, oldest first.
    pub reflections: Vec<ReflectionRow>,
    /// The state no part holds rows of, restated as ops applied after the parts: tag
    /// aliases ([`Op::PutTagAliases`]), saved searches ([`Op::PutSavedSearches`]), the
    /// archive ([`Op::PutArchived`]) and the usage counts ([`Op::Used`]). The entry's tail,
    /// written only when not empty (so a checkpoint without them reads in versions from
    /// before them).
    #[serde(skip)]
    pub more: Vec<Op<'a>>,
}

/// An entry of the table of who made changes.
#[derive(Serialize, Debug, PartialEq, Eq, Clone, Copy)]
#[cfg_attr(test, derive(Deserialize))]
pub struct AgentRow {
    /// The client's name.
    pub client: Str,
    /// The client's version.
    pub version: Str,
    /// The session.
    pub session: Str,
    /// Who the host ran for.
    pub actor: OptStr,
}

/// An entity; its observations and tags follow those of the entities before it in
/// [`Checkpoint::facts`] and [`Checkpoint::tags`].
#[derive(Serialize, Debug, PartialEq, Clone, Copy)]
#[cfg_attr(test, derive(Deserialize))]
pub struct EntityRow {
    /// Its name.
    pub name: Str,
    /// Its type.
    pub entity_type: Str,
    /// When it was created.
    pub created: Millis,
    /// When it last changed.
    pub updated: Millis,
    /// The id its next observation gets.
    pub next_fact: u32,
    /// How many current observations it has.
    pub current: u32,
    /// How many superseded observations it keeps.
    pub past: u32,
    /// How many tags it has.
    pub tags: u32,
    /// Its importance.
    pub importance: Option<f64>,
    /// The entity it belongs under.
    pub parent: OptStr,
    /// Its status (`0`: active).
    pub status: OptStr,
}

/// An observation.
#[derive(Serialize, Debug, PartialEq, Eq, Clone, Copy)]
#[cfg_attr(test, derive(Deserialize))]
pub struct FactRow {
    /// Its text.
    pub text: Str,
    /// Its id within the entity.
    pub id: u32,
    /// The id of the observation it superseded (`0`: none).
    pub supersedes: u32,
    /// Its kind (`0`: generic).
    pub kind: OptStr,
    /// When it was added.
    pub created: Millis,
    /// When it was superseded (`0` for a current one).
    pub superseded: Millis,
}

/// A relation.
#[derive(Serialize, Debug, PartialEq, Eq, Clone, Copy)]
#[cfg_attr(test, derive(Deserialize))]
pub struct RelationRow {
    /// Where it starts.
    pub from: Str,
    /// Where it ends.
    pub to: Str,
    /// Its type.
    pub relation_type: Str,
    /// When it was created.
    pub created: Millis,
    /// Its context.
    pub context: OptStr,
}

/// What a reflection is about.
#[derive(Serialize, Debug, PartialEq, Eq, Clone, Copy)]
#[cfg_attr(test, derive(Deserialize))]
pub enum TargetRow {
    /// The memory as a whole.
    Global,
    /// An entity, by name.
    Entity(Str),
    /// A relation: from, to, type.
    Relation([Str; 3]),
    /// A session, by id.
    Session(Str),
}

/// A reflection.
#[derive(Serialize, Debug, PartialEq, Eq, Clone, Copy)]
#[cfg_attr(test, derive(Deserialize))]
pub struct ReflectionRow {
    /// Its id.
    pub id: u32,
    /// What it is about.
    pub target: TargetRow,
    /// Who wrote it.
    pub author: Str,
    /// The author's mood.
    pub mood: OptStr,
    /// Its text.
    pub content: Str,
    /// When it was written.
    pub created: Millis,
}

/// The parts of a checkpoint after its strings, in the entry's order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    /// [`Checkpoint::agents`].
    Agents,
    /// [`Checkpoint::entities`].
    Entities,
    /// [`Checkpoint::facts`].
    Facts,
    /// [`Checkpoint::tags`].
    Tags,
    /// [`Checkpoint::relations`].
    Relations,
    /// [`Checkpoint::ended`].
    Ended,
    /// [`Checkpoint::reflections`].
    Reflections,
}

impl Part {
    /// Every part, in the entry's order.
    pub const ALL: [Part; 7] = [
        Part::Agents,
        Part::Entities,
        Part::Facts,
        Part::Tags,
        Part::Relations,
        Part::Ended,
        Part::Reflections,
    ];
}

/// What [`read_checkpoint`] hands over, in the entry's order: the strings and the time, then each
/// part's length followed by its rows. A row the visitor refuses (it names what the
/// checkpoint does not hold) stops reading, with the visitor's reason.
pub trait Visit<'a> {
    /// Every string, then [`Checkpoint::last_at`].
    fn strings(&mut self, strings: Vec<&'a str>, last_at: Millis);
    /// A part of `len` rows begins.
    fn part(&mut self, part: Part, len: usize) -> Result<(), &'static str>;
    /// A row of [`Checkpoint::agents`].
    fn agent(&mut self, row: AgentRow) -> Result<(), &'static str>;
    /// A row of [`Checkpoint::entities`].
    fn entity(&mut self, row: EntityRow) -> Result<(), &'static str>;
    /// A row of [`Checkpoint::facts`].
    fn fact(&mut self, row: FactRow) -> Result<(), &'static str>;
    /// A row of [`Checkpoint::tags`].
    fn tag(&mut self, row: Str) -> Result<(), &'static str>;
    /// A row of [`Checkpoint::relations`].
    fn relation(&mut self, row: RelationRow) -> Result<(), &'static str>;
    /// A row of [`Checkpoint::ended`].
    fn ended(&mut self, row: RelationRow, at: Millis) -> Result<(), &'static str>;
    /// A row of [`Checkpoint::reflections`].
    fn reflection(&mut self, row: ReflectionRow) -> Result<(), &'static str>;
    /// [`Checkpoint::more`], when the entry has a tail.
    fn more(&mut self, ops: Vec<Op<'a>>) -> Result<(), &'static str>;
}

/// Reads a checkpoint entry (the tag, then the postcard encoding of [`Checkpoint`]) row by
/// row into `visit`, holding no rows itself: loading a graph builds it as it reads.
pub fn read_checkpoint<'a>(bytes: &'a [u8], visit: &mut impl Visit<'a>) -> Result<(), DecodeError> {
    if !is_checkpoint(bytes) {
        return Err(DecodeError("not a checkpoint".into()));
    }
    let mut r = Reader {
        bytes,
        at: 1,
        why: "",
    };
    r.checkpoint(visit)
        .map_err(|Bad| DecodeError(alloc::format!("{} at byte {} of a checkpoint", r.why, r.at)))?;
    if r.at == bytes.len() {
        return Ok(());
    }
    let more = read_more(&bytes[r.at..])?;
    visit.more(more).map_err(|why| DecodeError(why.into()))
}

/// A checkpoint's tail ([`Checkpoint::more`]): ops restating tag aliases, saved searches,
/// the archive and the usage counts,
/// at least one, none of them empty (what a writer writes).
fn read_more(tail: &[u8]) -> Result<Vec<Op<'_>>, DecodeError> {
    let more: Vec<Op<'_>> = decode_all(tail)?;
    let restated = |op: &Op<'_>| match op {
        Op::PutTagAliases(list) => !list.is_empty(),
        Op::PutSavedSearches(list) => !list.is_empty(),
        Op::PutArchived(list) => !list.is_empty(),
        Op::Used(u) => !u.accesses.is_empty() || !u.pairs.is_empty(),
        _ => false,
    };
    if more.is_empty() || !more.iter().all(restated) {
        return Err(DecodeError(
            "a checkpoint's tail holds what a checkpoint never restates".into(),
        ));
    }
    Ok(more)
}

/// Rows collected as they are read (no row is refused: [`Checkpoint::decode`] checks them
/// after).
impl<'a> Visit<'a> for Checkpoint<'a> {
    fn strings(&mut self, strings: Vec<&'a str>, last_at: Millis) {
        self.strings = strings;
        self.last_at = last_at;
    }

    fn part(&mut self, part: Part, len: usize) -> Result<(), &'static str> {
        match part {
            Part::Agents => self.agents.reserve(len),
            Part::Entities => self.entities.reserve(len),
            Part::Facts => self.facts.reserve(len),
            Part::Tags => self.tags.reserve(len),
            Part::Relations => self.relations.reserve(len),
            Part::Ended => self.ended.reserve(len),
            Part::Reflections => self.reflections.reserve(len),
        }
        Ok(())
    }

    fn agent(&mut self, row: AgentRow) -> Result<(), &'static str> {
        self.agents.push(row);
        Ok(())
    }

    fn entity(&mut self, row: EntityRow) -> Result<(), &'static str> {
        self.entities.push(row);
        Ok(())
    }

    fn fact(&mut self, row: FactRow) -> Result<(), &'static str> {
        self.facts.push(row);
        Ok(())
    }

    fn tag(&mut self, row: Str) -> Result<(), &'static str> {
        self.tags.push(row);
        Ok(())
    }

    fn relation(&mut self, row: RelationRow) -> Result<(), &'static str> {
        self.relations.push(row);
        Ok(())
    }

    fn ended(&mut self, row: RelationRow, at: Millis) -> Result<(), &'static str> {
        self.ended.push((row, at));
        Ok(())
    }

    fn reflection(&mut self, row: ReflectionRow) -> Result<(), &'static str> {
        self.reflections.push(row);
        Ok(())
    }

    fn more(&mut self, ops: Vec<Op<'a>>) -> Result<(), &'static str> {
        self.more = ops;
        Ok(())
    }
}

/// Whether a log entry is a checkpoint rather than a change.
pub fn is_checkpoint(bytes: &[u8]) -> bool {
    bytes.first() == Some(&CHECKPOINT)
}

impl<'a> Checkpoint<'a> {
    /// The entry's bytes: the tag, then the checkpoint.
    pub fn encode(&self) -> Vec<u8> {
        // Sized first: the entry is megabytes, and a buffer that doubles as it is written
        // leaves holes a WebAssembly heap never gives back.
        let entry = (CHECKPOINT, self);
        let size = postcard::serialize_with_flavor(&entry, postcard::ser_flavors::Size::default())
            .expect("checkpoints always serialize");
        let out = Vec::with_capacity(size);
        let out = postcard::to_extend(&entry, out).expect("checkpoints always serialize");
        match self.more.is_empty() {
            true => out,
            false => postcard::to_extend(&self.more, out).expect("ops always serialize"),
        }
    }

    /// Reads a checkpoint entry into rows, borrowing strings from it. Every index must name
    /// a string and the entities' counts must add up to the facts and tags listed.
    pub fn decode(bytes: &'a [u8]) -> Result<Self, DecodeError> {
        let mut c = Checkpoint::default();
        read_checkpoint(bytes, &mut c)?;
        c.check()?;
        Ok(c)
    }

    fn check(&self) -> Result<(), DecodeError> {
        let n = self.strings.len() as u64;
        let str_ok = |s: Str| u64::from(s) < n;
        let opt_ok = |s: OptStr| u64::from(s) <= n;
        let agents = self
            .agents
            .iter()
            .all(|a| str_ok(a.client) && str_ok(a.version) && str_ok(a.session) && opt_ok(a.actor));
        let entities = self.entities.iter().all(|e| {
            str_ok(e.name) && str_ok(e.entity_type) && opt_ok(e.parent) && opt_ok(e.status)
        });
        let facts = self.facts.iter().all(|f| str_ok(f.text) && opt_ok(f.kind));
        let relation = |r: &RelationRow| {
            str_ok(r.from) && str_ok(r.to) && str_ok(r.relation_type) && opt_ok(r.context)
        };
        let relations =
            self.relations.iter().all(relation) && self.ended.iter().all(|(r, _)| relation(r));
        let reflections = self.reflections.iter().all(|r| {
            let target = match r.target {
                TargetRow::Global => true,
                TargetRow::Entity(s) | TargetRow::Session(s) => str_ok(s),
                TargetRow::Relation(t) => t.iter().all(|&s| str_ok(s)),
            };
            target && str_ok(r.author) && opt_ok(r.mood) && str_ok(r.content)
        });
        let sum =
            |f: fn(&EntityRow) -> u32| self.entities.iter().map(|e| u64::from(f(e))).sum::<u64>();
        let counts = sum(|e| e.current) + sum(|e| e.past) == self.facts.len() as u64
            && sum(|e| e.tags) == self.tags.len() as u64;
        if agents && entities && facts && relations && reflections && counts {
            Ok(())
        } else {
            Err(DecodeError(
                "a checkpoint refers to a string or an observation it does not hold".into(),
            ))
        }
    }
}

/// Reads postcard's encoding of a checkpoint's parts: varints (LEB128; postcard's limits on
/// their length and last byte), one-byte option tags, little-endian floats, and lists and
/// strings as a varint length and their items.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
    /// Why reading stopped, at `at` (set with [`Bad`]).
    why: &'static str,
}

/// Reading stopped (the reader says why). Small, so results stay in registers.
struct Bad;

type Read<T> = Result<T, Bad>;

impl<'a> Reader<'a> {
    /// The checkpoint after its tag, row by row into `v`.
    fn checkpoint(&mut self, v: &mut impl Visit<'a>) -> Read<()> {
        let n = self.len(1)?;
        let mut strings = Vec::with_capacity(n);
        for _ in 0..n {
            strings.push(self.str()?);
        }
        v.strings(strings, self.u64()?);
        for part in Part::ALL {
            // The fewest bytes a row of the part takes (bounds the room a damaged length
            // can make the visitor reserve).
            let min_bytes = match part {
                Part::Agents => 4,
                Part::Entities => 11,
                Part::Facts | Part::Ended | Part::Reflections => 6,
                Part::Tags => 1,
                Part::Relations => 5,
            };
            let len = self.len(min_bytes)?;
            v.part(part, len).map_err(|why| self.fail(why))?;
            for _ in 0..len {
                let given = match part {
                    Part::Agents => v.agent(self.agent()?),
                    Part::Entities => v.entity(self.entity()?),
                    Part::Facts => v.fact(self.fact()?),
                    Part::Tags => v.tag(self.u32()?),
                    Part::Relations => v.relation(self.relation()?),
                    Part::Ended => v.ended(self.relation()?, self.u64()?),
                    Part::Reflections => v.reflection(self.reflection()?),
                };
                given.map_err(|why| self.fail(why))?;
            }
        }
        Ok(())
    }

    fn agent(&mut self) -> Read<AgentRow> {
        Ok(AgentRow {
            client: self.u32()?,
            version: self.u32()?,
            session: self.u32()?,
            actor: self.u32()?,
        })
    }

    fn entity(&mut self) -> Read<EntityRow> {
        Ok(EntityRow {
            name: self.u32()?,
            entity_type: self.u32()?,
            created: self.u64()?,
            updated: self.u64()?,
            next_fact: self.u32()?,
            current: self.u32()?,
            past: self.u32()?,
            tags: self.u32()?,
            importance: self.option_f64()?,
            parent: self.u32()?,
            status: self.u32()?,
        })
    }

    fn fact(&mut self) -> Read<FactRow> {
        Ok(FactRow {
            text: self.u32()?,
            id: self.u32()?,
            supersedes: self.u32()?,
            kind: self.u32()?,
            created: self.u64()?,
            superseded: self.u64()?,
        })
    }

    fn reflection(&mut self) -> Read<ReflectionRow> {
        Ok(ReflectionRow {
            id: self.u32()?,
            target: match self.u32()? {
                0 => TargetRow::Global,
                1 => TargetRow::Entity(self.u32()?),
                2 => TargetRow::Relation([self.u32()?, self.u32()?, self.u32()?]),
                3 => TargetRow::Session(self.u32()?),
                _ => return Err(self.fail("an unknown reflection target")),
            },
            author: self.u32()?,
            mood: self.u32()?,
            content: self.u32()?,
            created: self.u64()?,
        })
    }

    #[cold]
    fn fail(&mut self, why: &'static str) -> Bad {
        self.why = why;
        Bad
    }

    fn byte(&mut self) -> Read<u8> {
        match self.bytes.get(self.at) {
            Some(&b) => {
                self.at += 1;
                Ok(b)
            }
            None => Err(self.fail("the end")),
        }
    }

    /// A varint of at most `max` bytes whose last byte is at most `last`.
    #[inline(always)]
    fn varint(&mut self, max: usize, last: u8) -> Read<u64> {
        // Most are one byte (counts, indexes); times take six. Eight bytes at once read
        // any varint up to eight bytes long without a branch per byte.
        match self.bytes.get(self.at..self.at + 8) {
            Some(&[b, ..]) if b < 0x80 => {
                self.at += 1;
                Ok(u64::from(b))
            }
            Some(chunk) => {
                let mut le = [0u8; 8];
                le.copy_from_slice(chunk);
                let word = u64::from_le_bytes(le);
                let stops = !word & 0x8080_8080_8080_8080;
                let n = stops.trailing_zeros() as usize / 8 + 1;
                if stops == 0 || n >= max {
                    return self.varint_bytewise(max, last);
                }
                // The n bytes' low seven bits, then pairs of groups joined: 7 -> 14 -> 28
                // -> 56 bits (three steps instead of a shift per byte).
                let x = word & (u64::MAX >> (64 - 8 * n)) & 0x7f7f_7f7f_7f7f_7f7f;
                let x = (x & 0x007f_007f_007f_007f) | ((x & 0x7f00_7f00_7f00_7f00) >> 1);
                let x = (x & 0x0000_3fff_0000_3fff) | ((x & 0x3fff_0000_3fff_0000) >> 2);
                let x = (x & 0x0000_0000_0fff_ffff) | ((x & 0x0fff_ffff_0000_0000) >> 4);
                self.at += n;
                Ok(x)
            }
            None => self.varint_bytewise(max, last),
        }
    }

    /// [`Reader::varint`] a byte at a time: near the end, and for the longest varints.
    fn varint_bytewise(&mut self, max: usize, last: u8) -> Read<u64> {
        let mut value = 0u64;
        for (i, &b) in self.bytes[self.at..].iter().take(max).enumerate() {
            value |= u64::from(b & 0x7f) << (7 * i);
            if b & 0x80 == 0 {
                if i == max - 1 && b > last {
                    break;
                }
                self.at += i + 1;
                return Ok(value);
            }
        }
        Err(self.fail("a varint out of range or cut short"))
    }

    #[inline(always)]
    fn u32(&mut self) -> Read<u32> {
        Ok(self.varint(5, 0x0f)? as u32)
    }

    #[inline(always)]
    fn u64(&mut self) -> Read<u64> {
        self.varint(10, 0x01)
    }

    fn option_f64(&mut self) -> Read<Option<f64>> {
        match self.byte()? {
            0 => Ok(None),
            1 => {
                let Some(bytes) = self.bytes.get(self.at..self.at + 8) else {
                    return Err(self.fail("the end"));
                };
                let mut le = [0u8; 8];
                le.copy_from_slice(bytes);
                self.at += 8;
                Ok(Some(f64::from_le_bytes(le)))
            }
            _ => Err(self.fail("an option tag that is not 0 or 1")),
        }
    }

    fn str(&mut self) -> Read<&'a str> {
        let len = self.u64()?;
        let end = usize::try_from(len)
            .ok()
            .and_then(|len| self.at.checked_add(len))
            .filter(|&end| end <= self.bytes.len());
        let Some(end) = end else {
            return Err(self.fail("a string past the end"));
        };
        let Ok(text) = core::str::from_utf8(&self.bytes[self.at..end]) else {
            return Err(self.fail("a string that is not UTF-8"));
        };
        self.at = end;
        Ok(text)
    }

    fn relation(&mut self) -> Read<RelationRow> {
        Ok(RelationRow {
            from: self.u32()?,
            to: self.u32()?,
            relation_type: self.u32()?,
            created: self.u64()?,
            context: self.u32()?,
        })
    }

    /// A list's length, for items each encoded in at least `min_bytes` (which bounds the
    /// room a damaged length can make a reader reserve).
    fn len(&mut self, min_bytes: usize) -> Read<usize> {
        let len = self.u64()?;
        let room = (self.bytes.len() - self.at) / min_bytes;
        match usize::try_from(len).ok().filter(|&len| len <= room) {
            Some(len) => Ok(len),
            None => Err(self.fail("a list longer than the bytes left")),
        }
    }
}

/// Checkpoints for property tests.
#[cfg(test)]
pub(crate) mod arbitrary {
    use super::*;
    use proptest::collection::vec;
    use proptest::prelude::*;

    /// Small numbers (one-byte varints, indexes that name strings) and any others.
    fn n() -> impl Strategy<Value = u32> {
        prop_oneof![0u32..4, any::<u32>()]
    }

    fn t() -> impl Strategy<Value = u64> {
        prop_oneof![0u64..200, any::<u64>()]
    }

    type Rel = (u32, u32, u32, u64, u32);

    fn relation((from, to, relation_type, created, context): Rel) -> RelationRow {
        RelationRow {
            from,
            to,
            relation_type,
            created,
            context,
        }
    }

    prop_compose! {
        /// A checkpoint's encoding: any rows (checked or not), with any strings.
        pub(crate) fn encoded()(
            strings in vec(".{0,6}", 0..5),
            last_at in t(),
            agents in vec((n(), n(), n(), n()), 0..3),
            entities in vec(
                (n(), n(), t(), t(), n(), n(), n(), n(), proptest::option::of(any::<f64>()), n(), n()),
                0..4,
            ),
            facts in vec((n(), n(), n(), n(), t(), t()), 0..6),
            tags in vec(n(), 0..4),
            relations in vec((n(), n(), n(), t(), n()), 0..4),
            ended in vec(((n(), n(), n(), t(), n()), t()), 0..3),
            reflections in vec((n(), 0u32..4, (n(), n(), n()), n(), n(), n(), t()), 0..3),
        ) -> Vec<u8> {
            Checkpoint {
                strings: strings.iter().map(|s| s.as_str()).collect(),
                last_at,
                agents: agents.into_iter().map(|(client, version, session, actor)| AgentRow {
                    client, version, session, actor,
                }).collect(),
                entities: entities.into_iter().map(|e| EntityRow {
                    name: e.0, entity_type: e.1, created: e.2, updated: e.3, next_fact: e.4,
                    current: e.5, past: e.6, tags: e.7, importance: e.8, parent: e.9, status: e.10,
                }).collect(),
                facts: facts.into_iter().map(|f| FactRow {
                    text: f.0, id: f.1, supersedes: f.2, kind: f.3, created: f.4, superseded: f.5,
                }).collect(),
                tags,
                relations: relations.into_iter().map(relation).collect(),
                ended: ended.into_iter().map(|(r, at)| (relation(r), at)).collect(),
                reflections: reflections.into_iter().map(|r| ReflectionRow {
                    id: r.0,
                    target: match r.1 {
                        0 => TargetRow::Global,
                        1 => TargetRow::Entity(r.2.0),
                        2 => TargetRow::Relation([r.2.0, r.2.1, r.2.2]),
                        _ => TargetRow::Session(r.2.0),
                    },
                    author: r.3, mood: r.4, content: r.5, created: r.6,
                }).collect(),
                more: Vec::new(),
            }.encode()
        }
    }

    /// A checkpoint [`Checkpoint::decode`] accepts: every index names one of its strings
    /// (which may repeat), and the entities' counts add up to the facts and tags listed.
    pub(crate) fn valid() -> impl Strategy<Value = Checkpoint<'static>> {
        const TEXTS: [&str; 5] = ["a", "b", "ä", "b", ""];
        (1usize..=5).prop_flat_map(|n| {
            let s = move || 0..n as u32;
            let opt = move || 0..=n as u32;
            let entity = (
                s(),
                s(),
                0u32..3,
                0u32..2,
                0u32..2,
                opt(),
                opt(),
                any::<bool>(),
            );
            (
                vec((s(), s(), s(), opt()), 0..3),
                vec(entity, 0..4),
                vec((s(), s(), s(), t(), opt()), 0..4),
                vec(((s(), s(), s(), t(), opt()), t()), 0..3),
                vec((0u32..4, s(), s(), s(), opt(), t()), 0..3),
                vec((s(), opt(), 0u32..3, t()), 0..12),
            )
                .prop_map(
                    move |(agents, entities, relations, ended, reflections, pool)| {
                        let fact = |i: usize, superseded: u64| {
                            let (text, kind, id, created) =
                                pool.get(i).copied().unwrap_or_default();
                            FactRow {
                                text,
                                id,
                                supersedes: id / 2,
                                kind,
                                created,
                                superseded,
                            }
                        };
                        let (mut facts, mut tags) = (Vec::new(), Vec::new());
                        let entities = entities
                            .into_iter()
                            .map(
                                |(name, entity_type, current, past, ntags, parent, status, imp)| {
                                    for _ in 0..current {
                                        facts.push(fact(facts.len(), 0));
                                    }
                                    for _ in 0..past {
                                        facts.push(fact(facts.len(), 7));
                                    }
                                    tags.extend((0..ntags).map(|t| (name + t) % n as u32));
                                    EntityRow {
                                        name,
                                        entity_type,
                                        created: 1,
                                        updated: 2,
                                        next_fact: current + past + 1,
                                        current,
                                        past,
                                        tags: ntags,
                                        importance: imp.then_some(0.5),
                                        parent,
                                        status,
                                    }
                                },
                            )
                            .collect();
                        Checkpoint {
                            strings: TEXTS[..n].to_vec(),
                            last_at: 9,
                            agents: agents
                                .into_iter()
                                .map(|(client, version, session, actor)| AgentRow {
                                    client,
                                    version,
                                    session,
                                    actor,
                                })
                                .collect(),
                            entities,
                            facts,
                            tags,
                            relations: relations.into_iter().map(relation).collect(),
                            ended: ended.into_iter().map(|(r, at)| (relation(r), at)).collect(),
                            reflections: reflections
                                .into_iter()
                                .map(|(k, a, b, c, mood, created)| ReflectionRow {
                                    id: a + 1,
                                    target: match k {
                                        0 => TargetRow::Global,
                                        1 => TargetRow::Entity(a),
                                        2 => TargetRow::Relation([a, b, c]),
                                        _ => TargetRow::Session(b),
                                    },
                                    author: b,
                                    mood,
                                    content: c,
                                    created,
                                })
                                .collect(),
                            more: Vec::new(),
                        }
                    },
                )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::arbitrary::encoded;
    use super::*;
    use alloc::string::ToString;
    use proptest::prelude::*;

    /// What postcard's serde reading of `bytes` gives, re-encoded (floats compare by bits).
    fn by_postcard(bytes: &[u8]) -> Result<Vec<u8>, DecodeError> {
        let ((tag, mut c), tail): ((u8, Checkpoint<'_>), _) =
            postcard::take_from_bytes(bytes).map_err(|e| DecodeError(e.to_string()))?;
        if tag != CHECKPOINT {
            return Err(DecodeError("not a checkpoint".to_string()));
        }
        if !tail.is_empty() {
            c.more = read_more(tail)?;
        }
        Ok(c.encode())
    }

    fn by_hand(bytes: &[u8]) -> Result<Vec<u8>, DecodeError> {
        let mut c = Checkpoint::default();
        read_checkpoint(bytes, &mut c)?;
        Ok(c.encode())
    }

    proptest! {
        #[test]
        fn reads_what_it_writes(bytes in encoded()) {
            prop_assert_eq!(by_hand(&bytes).ok(), Some(bytes.clone()));
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(32))]

        /// Damaged bytes read as postcard reads them (the same checkpoint, or an error for
        /// both): every byte replaced by every value, the bytes cut at every length, and a
        /// byte added or removed anywhere.
        #[test]
        fn reads_damaged_bytes_as_postcard_does(bytes in encoded(), byte in any::<u8>()) {
            let same = |damaged: &[u8]| by_hand(damaged).ok() == by_postcard(damaged).ok();
            for i in 0..bytes.len() {
                let mut damaged = bytes.clone();
                for v in 0..=255 {
                    damaged[i] = v;
                    prop_assert!(same(&damaged), "byte {} set to {}", i, v);
                }
                prop_assert!(same(&bytes[..i]), "cut at {}", i);
                let mut added = bytes.clone();
                added.insert(i, byte);
                prop_assert!(same(&added), "{} added at {}", byte, i);
                let mut removed = bytes.clone();
                removed.remove(i);
                prop_assert!(same(&removed), "byte {} removed", i);
            }
        }
    }

    #[test]
    fn varints_past_their_type_are_refused_as_postcard_refuses_them() {
        // A u32 of five bytes whose last carries more than 4 bits; a u64 of ten whose last
        // carries more than 1; an eleven-byte varint.
        let u32_over = [0x80, 0x80, 0x80, 0x80, 0x10];
        let u64_over = [0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x02];
        let mut r = Reader {
            bytes: &u32_over,
            at: 0,
            why: "",
        };
        assert!(r.u32().is_err());
        let mut r = Reader {
            bytes: &u64_over,
            at: 0,
            why: "",
        };
        assert!(r.u64().is_err());
        let max = [0xff, 0xff, 0xff, 0xff, 0x0f];
        let mut r = Reader {
            bytes: &max,
            at: 0,
            why: "",
        };
        assert_eq!(r.u32().ok(), Some(u32::MAX));
    }
}
