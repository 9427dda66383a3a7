//! Reflections ranked by relevance to a query: BM25 over their folded, accent-free words.

use alloc::string::String;
use alloc::vec::Vec;

use crate::graph::{Graph, Reflection, Target};
use crate::index::search::text::{is_stopword, token_list};
use crate::index::search::{bm25, ln};
use crate::json::round4;

/// Which reflections a search keeps: by author, by mood, and by what they are about.
pub struct Wanted<'a, F: Fn(&Target) -> bool> {
    /// Only this author's.
    pub author: Option<&'a str>,
    /// Only those with this mood.
    pub mood: Option<&'a str>,
    /// Only those about what this accepts.
    pub about: F,
}

/// Reflections that are `wanted`, ranked by relevance to `query` (BM25 over their folded,
/// accent-free words, stopwords left out unless the query has nothing else; the score
/// rounded to 4 decimals), newest first among equals; with no query words, newest first.
pub fn ranked<'g>(
    g: &'g Graph,
    query: &str,
    wanted: Wanted<'_, impl Fn(&Target) -> bool>,
) -> Vec<(f64, &'g Reflection)> {
    let keep = |r: &Reflection| {
        wanted.author.is_none_or(|x| g.text(r.author) == x)
            && wanted
                .mood
                .is_none_or(|x| r.mood.is_some_and(|m| g.text(m) == x))
            && (wanted.about)(&r.target)
    };
    let candidates: Vec<&Reflection> = g.reflections().iter().filter(|r| keep(r)).collect();
    let mut words: Vec<String> = token_list(query);
    // Stopwords are left out, unless the query has nothing else.
    if words.iter().any(|w| !is_stopword(w)) {
        words.retain(|w| !is_stopword(w));
    }
    words.sort_unstable();
    words.dedup();
    let docs: Vec<Vec<String>> = candidates
        .iter()
        .map(|r| token_list(g.text(r.content)))
        .collect();
    let n = docs.len() as f64;
    let average = docs.iter().map(Vec::len).sum::<usize>() as f64 / n.max(1.0);
    // Each word's idf, counted once over all the documents.
    let idf: Vec<f64> = words
        .iter()
        .map(|w| {
            let df = docs.iter().filter(|d| d.contains(w)).count() as f64;
            ln(1.0 + (n - df + 0.5) / (df + 0.5))
        })
        .collect();
    let mut scored: Vec<(f64, &Reflection)> = candidates
        .iter()
        .zip(&docs)
        .map(|(&r, doc)| {
            let score = words
                .iter()
                .zip(&idf)
                .map(|(w, &idf)| {
                    let tf = doc.iter().filter(|d| *d == w).count() as f64;
                    bm25(idf, tf, doc.len() as f64, average.max(1.0))
                })
                .sum::<f64>();
            (score, r)
        })
        .filter(|(score, _)| words.is_empty() || *score > 0.0)
        .collect();
    scored.sort_by(|a, b| {
        b.0.total_cmp(&a.0)
            .then(b.1.created.cmp(&a.1.created))
            .then(b.1.id.cmp(&a.1.id))
    });
    for s in &mut scored {
        s.0 = round4(s.0);
    }
    scored
}
