//! Text to vectors for semantic search, with a static embedding table and no model to run.
//!
//! The table (`core/embeddings/table.bin`, made once by `core/embeddings/distill.py` from
//! all-MiniLM-L6-v2) gives each WordPiece token a vector. A text's vector is the mean of
//! its tokens' rows ([`wordpiece`] finds the tokens; `[UNK]` is left out), L2-normalised, so
//! the dot product of two is their cosine. The core does not hold the table: a host hands
//! its bytes over ([`Table::parse`]), and without it semantic search is off.
//!
//! The table's layout (integers little-endian): the magic [`MAGIC`]; `u32` rows (the
//! vocabulary's size), `u32` dimensions, `u32` bytes of vocabulary; the vocabulary, one
//! token per line, each ending in `\n` (row `i` is line `i`); `f32` per row, its scale;
//! `i8` rows × dimensions (row `i`'s value at `j` is `rows[i][j] × scales[i]`).

pub mod wordpiece;

use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use wordpiece::Vocab;

/// The first bytes of a table: its name and layout version.
pub const MAGIC: [u8; 8] = *b"MMEMB\x00\x00\x01";

/// Why a table's bytes were refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TableError {
    /// It does not start with [`MAGIC`].
    NotATable,
    /// Its sizes do not add up to its length.
    WrongSize,
    /// Its vocabulary is not UTF-8, or has no `[UNK]`.
    BadVocabulary,
}

impl core::fmt::Display for TableError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            TableError::NotATable => "not an embedding table (wrong magic)",
            TableError::WrongSize => "an embedding table whose sizes do not match its length",
            TableError::BadVocabulary => "an embedding table whose vocabulary is unreadable",
        })
    }
}

/// A parsed embedding table: the vocabulary, and each token's row.
pub struct Table {
    vocab: Vocab,
    dims: usize,
    scales: Vec<f32>,
    /// The table's bytes; the rows are read where they lie (from `rows_at`), not copied.
    bytes: Vec<u8>,
    rows_at: usize,
    /// The xxh3 of the bytes: which table vectors saved with it were made by.
    fingerprint: u64,
}

impl Table {
    /// Reads a table's bytes (see the module's docs for the layout), keeping them.
    pub fn parse(bytes: Vec<u8>) -> Result<Table, TableError> {
        let header = 8 + 3 * 4;
        if bytes.len() < header || bytes[..8] != MAGIC {
            return Err(TableError::NotATable);
        }
        let word = |i: usize| {
            let at = 8 + 4 * i;
            u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]) as usize
        };
        let (n, dims, vocab_len) = (word(0), word(1), word(2));
        let vocab_end = header + vocab_len;
        let scales_end = vocab_end + 4 * n;
        if dims == 0 || bytes.len() != scales_end + n * dims {
            return Err(TableError::WrongSize);
        }
        let text = core::str::from_utf8(&bytes[header..vocab_end])
            .map_err(|_| TableError::BadVocabulary)?;
        let lines = text.strip_suffix('\n').unwrap_or(text).split('\n');
        let vocab = Vocab::new(lines).ok_or(TableError::BadVocabulary)?;
        if vocab.len() != n {
            return Err(TableError::WrongSize);
        }
        let scales = bytes[vocab_end..scales_end]
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        Ok(Table {
            vocab,
            dims,
            scales,
            fingerprint: xxhash_rust::xxh3::xxh3_64(&bytes),
            bytes,
            rows_at: scales_end,
        })
    }

    /// Which table this is: the xxh3 of its bytes (vectors saved with another table are
    /// not read back).
    pub fn fingerprint(&self) -> u64 {
        self.fingerprint
    }

    /// Dimensions of a vector.
    pub fn dims(&self) -> usize {
        self.dims
    }

    /// The tokeniser of the table's vocabulary.
    pub fn vocab(&self) -> &Vocab {
        &self.vocab
    }

    /// An embedder over this table, with its own scratch space.
    pub fn embedder(&self) -> Embedder<'_> {
        Embedder {
            table: self,
            sum: vec![0.0; self.dims],
            tokens: 0,
            buf: String::new(),
            ids: Vec::new(),
        }
    }
}

/// Sums the rows of texts' tokens; [`Embedder::finish`] gives their normalised mean.
pub struct Embedder<'t> {
    table: &'t Table,
    sum: Vec<f32>,
    tokens: usize,
    buf: String,
    ids: Vec<u32>,
}

impl Embedder<'_> {
    /// Adds the tokens of `text`.
    pub fn add(&mut self, text: &str) {
        let t = self.table;
        self.ids.clear();
        t.vocab.tokenize(text, &mut self.buf, &mut self.ids);
        let unk = t.vocab.unk();
        for &id in self.ids.iter().filter(|&&id| id != unk) {
            let at = t.rows_at + id as usize * t.dims;
            let scale = t.scales[id as usize];
            add_scaled(&mut self.sum, &t.bytes[at..at + t.dims], scale);
            self.tokens += 1;
        }
    }

    /// The unit vector of everything added since the last call (`None` if no token had a
    /// row), and a fresh start.
    pub fn finish(&mut self) -> Option<Vec<f32>> {
        let norm = self.norm();
        let v = norm.map(|norm| self.sum.iter().map(|x| x / norm).collect());
        self.sum.fill(0.0);
        v
    }

    /// [`Embedder::finish`] as `i8` codes: writes the unit vector's codes into `codes`
    /// (its largest component at ±127, each component `code × scale`) and returns their
    /// scale; 0, with every code 0, if no token had a row. A fresh start.
    pub fn finish_codes(&mut self, codes: &mut [i8]) -> f32 {
        let scale = match self.norm() {
            Some(norm) => quantize(&self.sum, codes) / norm,
            None => {
                codes.fill(0);
                0.0
            }
        };
        self.sum.fill(0.0);
        scale
    }

    /// The length of the sum (`None` if no token had a row); forgets the token count.
    fn norm(&mut self) -> Option<f32> {
        let norm = libm::sqrtf(self.sum.iter().map(|x| x * x).sum::<f32>());
        let had = core::mem::take(&mut self.tokens) > 0;
        (had && norm > 0.0).then_some(norm)
    }
}

/// Adds `row` (bytes of `i8` codes) times `scale` to `sum`: explicit SIMD in WebAssembly
/// with simd128 (where every host runs the core), else a loop the compiler vectorises.
fn add_scaled(sum: &mut [f32], row: &[u8], scale: f32) {
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    let (sum, row) = simd::add_scaled(sum, row, scale);
    for (s, &r) in sum.iter_mut().zip(row) {
        *s += f32::from(r as i8) * scale;
    }
}

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod simd {
    use core::arch::wasm32::*;

    /// [`super::add_scaled`] over whole blocks of 16 codes, four `f32x4` lanes at a time;
    /// returns what is left of both.
    #[inline(always)]
    pub fn add_scaled<'s, 'r>(
        sum: &'s mut [f32],
        row: &'r [u8],
        scale: f32,
    ) -> (&'s mut [f32], &'r [u8]) {
        let k = f32x4_splat(scale);
        let mut sums = sum.chunks_exact_mut(16);
        let mut rows = row.chunks_exact(16);
        for (s, r) in (&mut sums).zip(&mut rows) {
            // Sixteen codes as one vector (the compiler makes this one load).
            let codes = u8x16(
                r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[9], r[10], r[11], r[12],
                r[13], r[14], r[15],
            );
            let (lo, hi) = (
                i16x8_extend_low_i8x16(codes),
                i16x8_extend_high_i8x16(codes),
            );
            let quarters = [
                i32x4_extend_low_i16x8(lo),
                i32x4_extend_high_i16x8(lo),
                i32x4_extend_low_i16x8(hi),
                i32x4_extend_high_i16x8(hi),
            ];
            for (s, q) in s.chunks_exact_mut(4).zip(quarters) {
                let v = f32x4_add(
                    f32x4(s[0], s[1], s[2], s[3]),
                    f32x4_mul(f32x4_convert_i32x4(q), k),
                );
                s[0] = f32x4_extract_lane::<0>(v);
                s[1] = f32x4_extract_lane::<1>(v);
                s[2] = f32x4_extract_lane::<2>(v);
                s[3] = f32x4_extract_lane::<3>(v);
            }
        }
        (sums.into_remainder(), rows.remainder())
    }
}

/// The largest code: vectors are scaled so their largest component is ±127.
const CODE_MAX: f32 = 127.0;

/// Writes `v`'s codes (its largest component at ±127) and returns their scale (a
/// component is `code × scale`; 0 for a zero vector, every code 0).
fn quantize(v: &[f32], codes: &mut [i8]) -> f32 {
    let peak = peak(v);
    if peak == 0.0 {
        codes.fill(0);
        return 0.0;
    }
    let k = CODE_MAX / peak;
    for (c, &x) in codes.iter_mut().zip(v) {
        let q = x * k;
        // Round half away from zero; |q| ≤ 127 by construction.
        *c = (q + if q < 0.0 { -0.5 } else { 0.5 }) as i32 as i8;
    }
    peak / CODE_MAX
}

/// The largest magnitude in `v`, in 16 lanes the compiler vectorises (`f32::max` would
/// be a call per element in WebAssembly, whose `max` treats NaN differently).
fn peak(v: &[f32]) -> f32 {
    let mut lanes = [0.0f32; 16];
    let (blocks, tail) = (v.chunks_exact(16), v.chunks_exact(16).remainder());
    for block in blocks {
        for (m, &x) in lanes.iter_mut().zip(block) {
            let a = x.abs();
            *m = if a > *m { a } else { *m };
        }
    }
    (lanes.iter().chain(tail)).fold(0.0, |m, &x| if x.abs() > m { x.abs() } else { m })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantized_vectors_keep_their_direction() {
        let v = [0.6f32, -0.8, 0.0, 0.05];
        let mut codes = [0i8; 4];
        let scale = quantize(&v, &mut codes);
        assert_eq!(codes, [95, -127, 0, 8]);
        for (&c, &x) in codes.iter().zip(&v) {
            assert!((f32::from(c) * scale - x).abs() <= scale / 2.0);
        }
        assert_eq!(quantize(&[0.0; 4], &mut codes), 0.0);
        assert_eq!(codes, [0; 4]);
    }

    #[test]
    fn peak_is_the_largest_magnitude_at_any_length() {
        let v: Vec<f32> = (0..40)
            .map(|i| ((i * 37 % 101) as f32 - 50.0) / 7.0)
            .collect();
        for n in 0..=40 {
            let plain = v[..n].iter().fold(0.0f32, |m, x| m.max(x.abs()));
            assert_eq!(peak(&v[..n]), plain, "length {n}");
        }
    }
}
