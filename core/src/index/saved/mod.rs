//! The search indexes saved beside the log for the state of its last checkpoint, so that a
//! start reads them instead of building them (building all three takes seconds at 200K
//! entities; reading them, tens of milliseconds).
//!
//! They are a cache: never part of the log and never needed to open it. A memory saves them
//! when it writes a checkpoint with its indexes built ([`write`], through
//! [`crate::log::Log::save_indexes`]), and a memory that opens from that checkpoint reads
//! them back a chunk at a time while it is idle, or at once when a search needs one first
//! ([`Saved`]). What it reads is trusted only if it is for that checkpoint (named by its
//! length and xxh3 hash), of this layout and whole: the header and the table of contents
//! carry their own hash, every section the hash of its chunks. Anything else is passed
//! over, and the index built from the graph as without them. Changes since the checkpoint
//! (replayed at opening, or made before a section was read) are applied to each section
//! once it is read ([`touched`]).
//!
//! ```text
//! file    = header (72 bytes) | chunks of each section, back to back | table of contents
//! header  = magic (8: "MMINDEX" 01) | layout u32 | entities u32 | checkpoint length u64 |
//!           checkpoint xxh3 u64 | embedding table xxh3 u64 | contents offset u64 |
//!           contents length u32 | 0 u32 | contents xxh3 u64 | xxh3 of the 64 bytes before
//! contents = sections u32 | (kind u32 | chunks u32 | xxh3 of its chunks u64 | length u32 per chunk)*
//! ```
//!
//! Integers are little-endian (postings, slots and codes are read back by copying them into
//! place, so the layout is the one those have in memory on the little-endian machines the
//! core runs on); slots are the entities' places in the checkpoint (dense, as loading it
//! numbers them). A chunk holds whole records of its section (`ranked`,
//! `trigrams`, `vectors`: each module says which).

mod ranked;
pub(crate) mod touched;
mod trigrams;
mod vectors;

use alloc::boxed::Box;
use alloc::rc::Rc;
use alloc::vec;
use alloc::vec::Vec;
use xxhash_rust::xxh3::{Xxh3, xxh3_64};

use super::search::SearchIndex;
use super::substring::SubstringIndex;
use super::vectors::VectorIndex;
use crate::embed::Table;
use crate::graph::Graph;
use crate::log::{IndexReader, LogError};
use touched::Touched;

// Postings, slots and codes are copied back as they lie in memory.
const _: () = assert!(
    cfg!(target_endian = "little"),
    "saved indexes are little-endian"
);

/// The first bytes of saved indexes.
pub const MAGIC: [u8; 8] = *b"MMINDEX\x01";

/// What a saved index holds for a given graph: bumped whenever that changes (the
/// tokeniser, trigram hashing, quantisation, a section's records), so that indexes saved by
/// another version are built anew instead of misread.
pub const LAYOUT: u32 = 1;

/// Bytes of the header.
const HEADER_LEN: usize = 72;

/// A chunk is cut after the record that takes it past this many bytes.
const CHUNK: usize = 256 << 10;

/// The three sections.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Kind {
    Ranked = 1,
    Trigrams = 2,
    Vectors = 3,
}

/// Why saved indexes (or one section) were passed over.
pub(crate) type Bad = &'static str;

/// Which checkpoint a save restates: its length and the xxh3 of its bytes.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Checkpoint {
    len: u64,
    hash: u64,
}

impl Checkpoint {
    /// The checkpoint entry of these bytes.
    pub fn of(bytes: &[u8]) -> Checkpoint {
        Checkpoint {
            len: bytes.len() as u64,
            hash: xxh3_64(bytes),
        }
    }
}

/// Entities' slots in the graph → their places in its checkpoint (its live entities in
/// order): what saved slots are.
pub(crate) struct Dense {
    of: Vec<u32>,
    len: u32,
}

impl Dense {
    const HOLE: u32 = u32::MAX;

    fn of(graph: &Graph) -> Dense {
        let slots = graph
            .entities()
            .last()
            .map_or(0, |(id, _)| id.slot() as usize + 1);
        let mut of = vec![Dense::HOLE; slots];
        let mut len = 0;
        for (id, _) in graph.entities() {
            of[id.slot() as usize] = len;
            len += 1;
        }
        Dense { of, len }
    }

    /// The place of the entity in `slot`, if one is there.
    pub(crate) fn place(&self, slot: u32) -> Option<u32> {
        self.of
            .get(slot as usize)
            .copied()
            .filter(|&p| p != Dense::HOLE)
    }
}

/// Where a save's pieces go: [`crate::log::Log::save_indexes`]'s arguments.
pub type Sink<'a> = dyn FnMut(u64, &[u8], bool) -> Result<(), LogError> + 'a;

/// Writes a section's records into chunks, and the chunks out as pieces of the save.
pub(crate) struct Writer<'s> {
    sink: &'s mut Sink<'s>,
    at: u64,
    /// The chunk being filled.
    chunk: Vec<u8>,
    /// The section being written: its chunks' lengths and their hash.
    lens: Vec<u32>,
    hash: Xxh3,
    contents: Vec<u8>,
    sections: u32,
}

impl Writer<'_> {
    /// The buffer the next record goes into.
    pub(crate) fn out(&mut self) -> &mut Vec<u8> {
        &mut self.chunk
    }

    /// Ends a record: the chunk goes out if it is full.
    pub(crate) fn record(&mut self) -> Result<(), LogError> {
        if self.chunk.len() >= CHUNK {
            self.flush()?;
        }
        Ok(())
    }

    fn flush(&mut self) -> Result<(), LogError> {
        if self.chunk.is_empty() {
            return Ok(());
        }
        (self.sink)(self.at, &self.chunk, false)?;
        self.hash.update(&self.chunk);
        self.at += self.chunk.len() as u64;
        self.lens.push(self.chunk.len() as u32);
        self.chunk.clear();
        Ok(())
    }

    /// Ends the section `kind`, whose records were written since the last.
    fn section(&mut self, kind: Kind) -> Result<(), LogError> {
        self.flush()?;
        let c = &mut self.contents;
        c.extend_from_slice(&(kind as u32).to_le_bytes());
        c.extend_from_slice(&(self.lens.len() as u32).to_le_bytes());
        c.extend_from_slice(&self.hash.digest().to_le_bytes());
        for len in self.lens.drain(..) {
            c.extend_from_slice(&len.to_le_bytes());
        }
        self.hash = Xxh3::new();
        self.sections += 1;
        Ok(())
    }
}

/// Little-endian appends.
pub(crate) trait Put {
    fn u32(&mut self, v: u32);
    fn u64(&mut self, v: u64);
}

impl Put for Vec<u8> {
    fn u32(&mut self, v: u32) {
        self.extend_from_slice(&v.to_le_bytes());
    }
    fn u64(&mut self, v: u64) {
        self.extend_from_slice(&v.to_le_bytes());
    }
}

/// Saves the built ones among `graph`'s indexes, restating them for `checkpoint` (the
/// checkpoint of `graph` as it stands), through `sink` (see
/// [`crate::log::Log::save_indexes`]). Returns whether any was saved; with none, it removes
/// what was saved before (it is for an older checkpoint).
pub(crate) fn write(
    graph: &Graph,
    checkpoint: Checkpoint,
    ranked: Option<&SearchIndex>,
    trigrams: Option<&SubstringIndex>,
    vectors: Option<&VectorIndex>,
    sink: &mut Sink<'_>,
) -> Result<bool, LogError> {
    if ranked.is_none() && trigrams.is_none() && vectors.is_none() {
        sink(0, &[], true)?;
        return Ok(false);
    }
    sink(0, &[0; HEADER_LEN], false)?;
    let dense = Dense::of(graph);
    let mut w = Writer {
        sink,
        at: HEADER_LEN as u64,
        chunk: Vec::with_capacity(CHUNK + (CHUNK >> 2)),
        lens: Vec::new(),
        hash: Xxh3::new(),
        contents: Vec::new(),
        sections: 0,
    };
    if let Some(index) = ranked {
        ranked::write(index, &dense, &mut w)?;
        w.section(Kind::Ranked)?;
    }
    if let Some(index) = trigrams {
        trigrams::write(index, &dense, &mut w)?;
        w.section(Kind::Trigrams)?;
    }
    let mut table = 0;
    if let Some(index) = vectors {
        table = index.table().fingerprint();
        vectors::write(index, graph, &mut w)?;
        w.section(Kind::Vectors)?;
    }
    let mut contents = (w.sections).to_le_bytes().to_vec();
    contents.append(&mut w.contents);
    let contents_at = w.at;
    (w.sink)(contents_at, &contents, false)?;
    let mut header = Vec::with_capacity(HEADER_LEN);
    header.extend_from_slice(&MAGIC);
    header.u32(LAYOUT);
    header.u32(dense.len);
    header.u64(checkpoint.len);
    header.u64(checkpoint.hash);
    header.u64(table);
    header.u64(contents_at);
    header.u32(contents.len() as u32);
    header.u32(0);
    header.u64(xxh3_64(&contents));
    header.u64(xxh3_64(&header));
    (w.sink)(0, &header, true)?;
    Ok(true)
}

/// Reads little-endian values off a chunk; running out is [`Bad`].
pub(crate) struct Bytes<'b>(pub(crate) &'b [u8]);

impl<'b> Bytes<'b> {
    pub(crate) fn take(&mut self, n: usize) -> Result<&'b [u8], Bad> {
        if self.0.len() < n {
            return Err("a record cut short");
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Ok(head)
    }

    pub(crate) fn u8(&mut self) -> Result<u8, Bad> {
        Ok(self.take(1)?[0])
    }

    pub(crate) fn u32(&mut self) -> Result<u32, Bad> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    pub(crate) fn u64(&mut self) -> Result<u64, Bad> {
        let b = self.take(8)?;
        Ok(u64::from_le_bytes(
            b.try_into().map_err(|_| "a record cut short")?,
        ))
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// `bytes` as little-endian u32s (a last partial one left out).
pub(crate) fn u32s(bytes: &[u8]) -> impl Iterator<Item = u32> + '_ {
    bytes
        .chunks_exact(4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

/// A section being read: records in, then the index they restate.
pub(crate) trait Reading: Sized {
    /// The index it restates.
    type Index;
    /// Reads one chunk's records.
    fn chunk(&mut self, bytes: Bytes<'_>) -> Result<(), Bad>;
    /// The index, once every chunk is read.
    fn finish(self) -> Result<Self::Index, Bad>;
    /// Brings `index`, read for the checkpoint, up to date with what `touched` lists.
    fn up_to_date(index: &mut Self::Index, touched: &Touched, graph: &Graph);
    /// The step that hands `index` over.
    fn done(index: Box<Self::Index>) -> Step;
}

/// Where a section's chunks are.
struct Section {
    kind: Kind,
    hash: u64,
    /// Offset and length of each chunk.
    chunks: Vec<(u64, u32)>,
}

/// A section's progress.
enum Progress<R> {
    /// Not begun.
    Waiting,
    /// `next` chunks read so far, hashed into `hash`.
    Reading {
        reader: R,
        next: usize,
        hash: Box<Xxh3>,
    },
    /// Taken, absent or passed over.
    Over,
}

/// Indexes saved for the checkpoint a memory opened from, being read.
pub(crate) struct Saved {
    read: IndexReader,
    checkpoint: Checkpoint,
    /// Entities in the checkpoint.
    entities: u32,
    /// The sections, once the header and contents are read (`Err`: none to read).
    sections: Option<Result<(u64, Vec<Section>), Bad>>,
    /// What changed since the checkpoint.
    pub(crate) touched: Touched,
    ranked: Progress<ranked::Reader>,
    trigrams: Progress<trigrams::Reader>,
    vectors: Progress<vectors::Reader>,
}

/// What one step of reading did.
pub(crate) enum Step {
    /// Read a chunk.
    Read,
    /// Read the last chunk of a section: here is its index.
    Ranked(Box<SearchIndex>),
    Trigrams(Box<SubstringIndex>),
    Vectors(Box<VectorIndex>),
    /// Nothing is left to read.
    Over,
}

impl Saved {
    /// Indexes to read with `read` for `checkpoint`, of `entities` entities, with the
    /// changes since it so far.
    pub(crate) fn new(
        read: IndexReader,
        checkpoint: Checkpoint,
        entities: u32,
        touched: Touched,
    ) -> Saved {
        Saved {
            read,
            checkpoint,
            entities,
            sections: None,
            touched,
            ranked: Progress::Waiting,
            trigrams: Progress::Waiting,
            vectors: Progress::Waiting,
        }
    }

    /// The header and contents, read by the first call.
    fn sections(&mut self) -> Result<&(u64, Vec<Section>), Bad> {
        if self.sections.is_none() {
            let read = read_contents(&mut self.read, self.checkpoint).and_then(|(n, toc)| {
                match n == self.entities {
                    true => Ok(toc),
                    false => Err("saved for as many entities as the checkpoint holds"),
                }
            });
            self.sections = Some(read);
        }
        match self.sections.as_ref() {
            Some(Ok(sections)) => Ok(sections),
            Some(Err(e)) => Err(e),
            None => Err("unread"),
        }
    }

    /// Whether every section is taken or passed over.
    pub(crate) fn is_over(&self) -> bool {
        matches!(self.ranked, Progress::Over)
            && matches!(self.trigrams, Progress::Over)
            && matches!(self.vectors, Progress::Over)
    }

    /// Gives up on the section of `kind` (its index is being built instead).
    pub(crate) fn pass_over(&mut self, kind: Kind) {
        match kind {
            Kind::Ranked => self.ranked = Progress::Over,
            Kind::Trigrams => self.trigrams = Progress::Over,
            Kind::Vectors => self.vectors = Progress::Over,
        }
    }

    /// The ranked index, read to the end now (changes since applied), if it was saved.
    pub(crate) fn ranked(&mut self, graph: &Graph) -> Option<SearchIndex> {
        self.finish(Kind::Ranked, Self::ranked_reader, |s| &mut s.ranked, graph)
    }

    /// The trigram index, read to the end now (changes since applied), if it was saved.
    pub(crate) fn trigrams(&mut self, graph: &Graph) -> Option<SubstringIndex> {
        self.finish(
            Kind::Trigrams,
            Self::trigrams_reader,
            |s| &mut s.trigrams,
            graph,
        )
    }

    /// The vectors, read to the end now (changes since applied), if they were saved with
    /// `table`.
    pub(crate) fn vectors(&mut self, graph: &Graph, table: &Rc<Table>) -> Option<VectorIndex> {
        let begin = |s: &mut Self| s.vectors_reader(table);
        self.finish(Kind::Vectors, begin, |s| &mut s.vectors, graph)
    }

    /// A reader of the ranked index.
    fn ranked_reader(&mut self) -> Option<ranked::Reader> {
        let bytes = self.section_len(Kind::Ranked)?;
        Some(ranked::Reader::new(self.entities, bytes))
    }

    /// A reader of the trigram index.
    fn trigrams_reader(&mut self) -> Option<trigrams::Reader> {
        Some(trigrams::Reader::new(self.entities))
    }

    /// A reader of the vectors, if they were saved with `table`.
    fn vectors_reader(&mut self, table: &Rc<Table>) -> Option<vectors::Reader> {
        let saved_with = self.table_saved()?;
        let entities = self.entities;
        (saved_with == table.fingerprint())
            .then(|| vectors::Reader::new(Rc::clone(table), entities))
    }

    /// The bytes of section `kind`'s chunks, if it was saved.
    fn section_len(&mut self, kind: Kind) -> Option<u64> {
        let (_, sections) = self.sections().ok()?;
        let section = sections.iter().find(|s| s.kind == kind)?;
        Some(section.chunks.iter().map(|&(_, len)| u64::from(len)).sum())
    }

    /// The embedding table the vectors were saved with (its fingerprint).
    fn table_saved(&mut self) -> Option<u64> {
        self.sections().ok().map(|(table, _)| *table)
    }

    /// Reads one chunk of the first section not read yet (vectors only with the embedding
    /// table `table` gives, and passed over without); the index of a section it finishes,
    /// changes since applied.
    pub(crate) fn step(
        &mut self,
        graph: &Graph,
        table: impl FnOnce() -> Option<Rc<Table>>,
    ) -> Step {
        if !matches!(self.ranked, Progress::Over) {
            return self.step_in(Kind::Ranked, Self::ranked_reader, |s| &mut s.ranked, graph);
        }
        if !matches!(self.trigrams, Progress::Over) {
            let begin = Self::trigrams_reader;
            return self.step_in(Kind::Trigrams, begin, |s| &mut s.trigrams, graph);
        }
        if !matches!(self.vectors, Progress::Over) {
            let reading = matches!(self.vectors, Progress::Reading { .. });
            let table = if reading { None } else { table() };
            if !reading && table.is_none() {
                self.vectors = Progress::Over;
                return Step::Read;
            }
            let begin = |s: &mut Self| s.vectors_reader(table.as_ref()?);
            return self.step_in(Kind::Vectors, begin, |s| &mut s.vectors, graph);
        }
        Step::Over
    }

    /// Reads one chunk of section `kind`; its index (changes since applied) if that was the
    /// last.
    fn step_in<R: Reading>(
        &mut self,
        kind: Kind,
        begin: impl Fn(&mut Self) -> Option<R>,
        progress: impl Fn(&mut Self) -> &mut Progress<R>,
        graph: &Graph,
    ) -> Step {
        match self.advance(kind, begin, progress) {
            Some(mut index) => {
                R::up_to_date(&mut index, &self.touched, graph);
                R::done(Box::new(index))
            }
            None => Step::Read,
        }
    }

    /// Reads the rest of section `kind`: its index (changes since applied), or `None` if it
    /// was not saved or cannot be read (then it is over).
    fn finish<R: Reading>(
        &mut self,
        kind: Kind,
        begin: impl Fn(&mut Self) -> Option<R>,
        progress: impl Fn(&mut Self) -> &mut Progress<R>,
        graph: &Graph,
    ) -> Option<R::Index> {
        loop {
            if matches!(progress(self), Progress::Over) {
                return None;
            }
            if let Some(mut index) = self.advance(kind, &begin, &progress) {
                R::up_to_date(&mut index, &self.touched, graph);
                return Some(index);
            }
        }
    }

    /// Reads the next chunk of section `kind` (begun with `begin` if it is waiting); its
    /// index once the last is read. A section that is absent, or cannot be read, is over.
    fn advance<R: Reading>(
        &mut self,
        kind: Kind,
        begin: impl Fn(&mut Self) -> Option<R>,
        progress: impl Fn(&mut Self) -> &mut Progress<R>,
    ) -> Option<R::Index> {
        let outcome = self.try_advance(kind, &begin, &progress);
        match outcome {
            Ok(Some(index)) => {
                *progress(self) = Progress::Over;
                Some(index)
            }
            Ok(None) => None,
            Err(_) => {
                *progress(self) = Progress::Over;
                None
            }
        }
    }

    fn try_advance<R: Reading>(
        &mut self,
        kind: Kind,
        begin: &impl Fn(&mut Self) -> Option<R>,
        progress: &impl Fn(&mut Self) -> &mut Progress<R>,
    ) -> Result<Option<R::Index>, Bad> {
        if matches!(progress(self), Progress::Waiting) {
            let at = self.sections()?.1.iter().position(|s| s.kind == kind);
            let (Some(_), Some(reader)) = (at, begin(self)) else {
                return Err("not saved");
            };
            *progress(self) = Progress::Reading {
                reader,
                next: 0,
                hash: Box::new(Xxh3::new()),
            };
        }
        let Progress::Reading { next, .. } = progress(self) else {
            return Err("over");
        };
        let next = *next;
        let (want, count, chunk) = {
            let (_, sections) = self.sections()?;
            let s = sections
                .iter()
                .find(|s| s.kind == kind)
                .ok_or("not saved")?;
            (s.hash, s.chunks.len(), s.chunks.get(next).copied())
        };
        let (at, len) = chunk.ok_or("over")?;
        let bytes = (self.read)(at, len)
            .map_err(|_| "unreadable")?
            .filter(|b| b.len() == len as usize)
            .ok_or("cut short")?;
        let Progress::Reading { reader, next, hash } = progress(self) else {
            return Err("over");
        };
        hash.update(&bytes);
        reader.chunk(Bytes(&bytes))?;
        *next += 1;
        if *next < count {
            return Ok(None);
        }
        if hash.digest() != want {
            return Err("damaged");
        }
        let Progress::Reading { reader, .. } = core::mem::replace(progress(self), Progress::Over)
        else {
            return Err("over");
        };
        reader.finish().map(Some)
    }
}

/// Which sections (ranked, trigrams, vectors) the indexes `read` reads hold for
/// `checkpoint`: none unless they are for it, of this layout, with header and contents
/// whole.
pub fn sections(read: &mut IndexReader, checkpoint: Checkpoint) -> [bool; 3] {
    let Ok((_, (_, sections))) = read_contents(read, checkpoint) else {
        return [false; 3];
    };
    let has = |kind| sections.iter().any(|s| s.kind == kind);
    [has(Kind::Ranked), has(Kind::Trigrams), has(Kind::Vectors)]
}

/// The entities, embedding table's fingerprint and sections of saved indexes read with
/// `read`, if they are for `checkpoint`, of this layout, and whole.
fn read_contents(
    read: &mut IndexReader,
    checkpoint: Checkpoint,
) -> Result<(u32, (u64, Vec<Section>)), Bad> {
    let head = read(0, HEADER_LEN as u32)
        .map_err(|_| "unreadable")?
        .ok_or("none saved")?;
    if head.len() != HEADER_LEN || head[..8] != MAGIC {
        return Err("not saved indexes");
    }
    let mut h = Bytes(&head[8..]);
    let (layout, count, len, hash) = (h.u32()?, h.u32()?, h.u64()?, h.u64()?);
    let (table, contents_at, contents_len, _, contents_hash, own) =
        (h.u64()?, h.u64()?, h.u32()?, h.u32()?, h.u64()?, h.u64()?);
    if own != xxh3_64(&head[..HEADER_LEN - 8]) {
        return Err("a damaged header");
    }
    if layout != LAYOUT || (Checkpoint { len, hash }) != checkpoint {
        return Err("saved for another checkpoint or version");
    }
    let contents = read(contents_at, contents_len)
        .map_err(|_| "unreadable")?
        .filter(|c| c.len() == contents_len as usize && xxh3_64(c) == contents_hash)
        .ok_or("damaged contents")?;
    let mut c = Bytes(&contents);
    let mut at = HEADER_LEN as u64;
    let mut sections = Vec::new();
    for _ in 0..c.u32()? {
        let kind = match c.u32()? {
            1 => Kind::Ranked,
            2 => Kind::Trigrams,
            3 => Kind::Vectors,
            _ => return Err("an unknown section"),
        };
        let (n, hash) = (c.u32()?, c.u64()?);
        let lens = c.take((n as usize).checked_mul(4).ok_or("contents cut short")?)?;
        let mut chunks = Vec::with_capacity(n as usize);
        for len in u32s(lens) {
            chunks.push((at, len));
            at += u64::from(len);
        }
        sections.push(Section { kind, hash, chunks });
    }
    if at != contents_at || !c.is_empty() {
        return Err("contents that do not add up");
    }
    Ok((count, (table, sections)))
}
