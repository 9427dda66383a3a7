//! The embedder: its tokeniser against the `tokenizers` library's ids, the table's checks,
//! and vectors that put paraphrases nearer than unrelated texts.

use crate::common::embedding_table_bytes;
use mcp_memory_core::embed::{MAGIC, Table, TableError};
use std::sync::OnceLock;

fn table() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(|| {
        Table::parse(embedding_table_bytes().to_vec()).expect("the committed table parses")
    })
}

#[test]
fn tokenizes_as_the_reference_tokenizer_does() {
    let fixture = include_str!("../fixtures/wordpiece.jsonl");
    let vocab = table().vocab();
    let (mut buf, mut ids) = (String::new(), Vec::new());
    let mut checked = 0;
    for line in fixture.lines() {
        let case: serde_json::Value = serde_json::from_str(line).expect("a fixture line");
        let text = case["text"].as_str().expect("text");
        let expected: Vec<u32> = case["ids"]
            .as_array()
            .expect("ids")
            .iter()
            .map(|id| id.as_u64().expect("an id") as u32)
            .collect();
        ids.clear();
        vocab.tokenize(text, &mut buf, &mut ids);
        let tokens = |ids: &[u32]| ids.iter().map(|&i| vocab.token(i)).collect::<Vec<_>>();
        assert_eq!(
            tokens(&ids),
            tokens(&expected),
            "tokens of {text:?} (normalised: {buf:?})"
        );
        checked += 1;
    }
    assert!(checked >= 25, "the fixture has its sentences");
}

fn cosine(a: &str, b: &str) -> f32 {
    let mut e = table().embedder();
    e.add(a);
    let va = e.finish().expect("a vector");
    e.add(b);
    let vb = e.finish().expect("a vector");
    va.iter().zip(&vb).map(|(x, y)| x * y).sum()
}

#[test]
fn paraphrases_are_nearer_than_unrelated_texts() {
    let cases = [
        (
            "Alice works as a software engineer at Google",
            "Alice is a programmer at a tech company",
            "Bob likes to go fishing on weekends",
        ),
        (
            "The user prefers dark mode in the editor",
            "likes a dark theme",
            "allergic to peanuts",
        ),
        (
            "project deadline is next Friday",
            "when is the project due",
            "favourite food is pizza",
        ),
    ];
    for (text, near, far) in cases {
        let (n, f) = (cosine(text, near), cosine(text, far));
        assert!(n > f + 0.2, "{text:?}: {near:?} {n} vs {far:?} {f}");
    }
}

#[test]
fn vectors_are_unit_length_and_texts_without_known_tokens_have_none() {
    let mut e = table().embedder();
    e.add("the user prefers dark mode");
    let v = e.finish().expect("a vector");
    assert_eq!(v.len(), table().dims());
    let norm: f32 = v.iter().map(|x| x * x).sum();
    assert!((norm - 1.0).abs() < 1e-4, "norm² {norm}");
    e.add("");
    assert_eq!(e.finish(), None, "an empty text");
    e.add(&"x".repeat(101));
    assert_eq!(e.finish(), None, "only [UNK]");
    e.add("first");
    e.add("second");
    let both = e.finish();
    e.add("first second");
    assert_eq!(both, e.finish(), "adds accumulate until finish");
}

#[test]
fn damaged_tables_are_refused() {
    let bytes = embedding_table_bytes();
    assert_eq!(
        Table::parse(bytes[1..].to_vec()).err(),
        Some(TableError::NotATable)
    );
    assert_eq!(
        Table::parse(bytes[..bytes.len() - 1].to_vec()).err(),
        Some(TableError::WrongSize)
    );
    let mut no_unk = bytes.to_vec();
    let at = no_unk
        .windows(5)
        .position(|w| w == b"[UNK]")
        .expect("the vocabulary has [UNK]");
    no_unk[at + 1] = b'X';
    assert_eq!(Table::parse(no_unk).err(), Some(TableError::BadVocabulary));
    let mut header_only = MAGIC.to_vec();
    header_only.extend([0u8; 12]);
    assert_eq!(Table::parse(header_only).err(), Some(TableError::WrongSize));
}
