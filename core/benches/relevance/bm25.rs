//! The baseline: plain Okapi BM25 over the same stored text, computed here.
//!
//! One document per entity (name, type and observations joined), lowercased and split on
//! non-alphanumerics; no stop words, no stemming, no field weights; k1 = 1.2, b = 0.75,
//! idf = ln(1 + (N − df + 0.5)/(df + 0.5)). A query is its distinct words, any of which may
//! match (OR); ties go to the earlier entity.

use std::collections::HashMap;

const K1: f32 = 1.2;
const B: f32 = 0.75;

pub struct Bm25 {
    terms: HashMap<String, usize>,
    /// Per term: (document, term frequency), documents ascending.
    postings: Vec<Vec<(u32, u32)>>,
    lengths: Vec<u32>,
    average: f32,
}

fn tokens(text: &str) -> impl Iterator<Item = String> + '_ {
    crate::corpus::words(text)
}

impl Bm25 {
    pub fn new(documents: impl IntoIterator<Item = String>) -> Bm25 {
        let mut terms: HashMap<String, usize> = HashMap::new();
        let mut postings: Vec<Vec<(u32, u32)>> = Vec::new();
        let mut lengths = Vec::new();
        let mut counts: HashMap<usize, u32> = HashMap::new();
        for (doc, text) in documents.into_iter().enumerate() {
            counts.clear();
            let mut length = 0;
            for token in tokens(&text) {
                length += 1;
                let next = terms.len();
                let term = *terms.entry(token).or_insert(next);
                if term == postings.len() {
                    postings.push(Vec::new());
                }
                *counts.entry(term).or_insert(0) += 1;
            }
            let mut sorted: Vec<(usize, u32)> = counts.iter().map(|(&t, &c)| (t, c)).collect();
            sorted.sort_unstable();
            for (term, tf) in sorted {
                postings[term].push((doc as u32, tf));
            }
            lengths.push(length);
        }
        let total: u64 = lengths.iter().map(|&l| u64::from(l)).sum();
        let average = total as f32 / lengths.len().max(1) as f32;
        Bm25 {
            terms,
            postings,
            lengths,
            average,
        }
    }

    /// The best `k` documents for `query`, best first.
    pub fn top(&self, query: &str, k: usize) -> Vec<usize> {
        let n = self.lengths.len() as f32;
        let mut query_terms: Vec<usize> = tokens(query)
            .filter_map(|t| self.terms.get(&t).copied())
            .collect();
        query_terms.sort_unstable();
        query_terms.dedup();
        let mut scores: HashMap<u32, f32> = HashMap::new();
        for term in query_terms {
            let list = &self.postings[term];
            let df = list.len() as f32;
            let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
            for &(doc, tf) in list {
                let tf = tf as f32;
                let norm = 1.0 - B + B * self.lengths[doc as usize] as f32 / self.average;
                *scores.entry(doc).or_insert(0.0) += idf * tf * (K1 + 1.0) / (tf + K1 * norm);
            }
        }
        let mut ranked: Vec<(u32, f32)> = scores.into_iter().collect();
        ranked.sort_unstable_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        ranked.truncate(k);
        ranked.into_iter().map(|(d, _)| d as usize).collect()
    }
}
