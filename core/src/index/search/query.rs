//! The query language, parsed into a tree.
//!
//! ```text
//! query   := or
//! or      := and ("OR" and)*
//! and     := unary (["AND"] unary)*        adjacent terms: implicit AND
//! unary   := "NOT" unary | "-" unary | primary
//! primary := [field ":"] word | [field ":"] "\"" phrase "\"" | "(" or ")"
//! field   := name | type | entityType | obs | observation | observations
//! ```
//!
//! Operators are upper case; lower-case `and`, `or`, `not` are words. An exclusion matches
//! its word exactly (no prefix, no typo). A word is folded and
//! tokenised like indexed text: a word that becomes several tokens (`e-mail`, `José's`) is a
//! phrase, and one that becomes none (punctuation) is left out. A quoted phrase of one token
//! matches that token exactly (no prefix, no typo). A query that does not parse (an
//! unbalanced quote or parenthesis, an operator with nothing to apply to, a field with no
//! word) is read as plain words instead: every token of it, implicitly ANDed.

use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec::Vec;

use super::index::{NAME, OBS, TYPE};
use super::text::{is_stopword, token_list};

/// A parsed query.
#[derive(Debug, Clone, PartialEq)]
pub enum Node {
    /// One token: matches it exactly and, unless `exact`, as a prefix or with a typo.
    Word {
        /// The folded token.
        text: String,
        /// The only field it may match in.
        field: Option<usize>,
        /// Quoted: exact matches only.
        exact: bool,
    },
    /// Tokens at adjacent positions of one field, exactly.
    Phrase {
        /// The folded tokens.
        terms: Vec<String>,
        /// The only field it may match in.
        field: Option<usize>,
    },
    /// Every part must match. `implicit` when no part was joined by an explicit `AND`:
    /// such a conjunction is relaxed to "any part" when the query finds nothing.
    And(Vec<Node>, bool),
    /// Some part must match.
    Or(Vec<Node>),
    /// Must not match.
    Not(Box<Node>),
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Word(String, Option<usize>),
    Phrase(String, Option<usize>),
    Open,
    Close,
    And,
    Or,
    Not,
    Minus,
}

fn field_named(name: &str) -> Option<usize> {
    match name.to_ascii_lowercase().as_str() {
        "name" => Some(NAME),
        "type" | "entitytype" | "entity_type" => Some(TYPE),
        "obs" | "observation" | "observations" => Some(OBS),
        _ => None,
    }
}

/// Splits a query into tokens; `Err` on an unbalanced quote or a field with no word.
fn lex(query: &str) -> Result<Vec<Tok>, ()> {
    let mut out = Vec::new();
    let mut rest = query;
    while let Some(c) = rest.chars().next() {
        if c.is_whitespace() {
            rest = &rest[c.len_utf8()..];
            continue;
        }
        match c {
            '(' => {
                out.push(Tok::Open);
                rest = &rest[1..];
            }
            ')' => {
                out.push(Tok::Close);
                rest = &rest[1..];
            }
            '"' => {
                let end = rest[1..].find('"').ok_or(())?;
                out.push(Tok::Phrase(rest[1..1 + end].into(), None));
                rest = &rest[end + 2..];
            }
            '-' if rest[1..]
                .chars()
                .next()
                .is_some_and(|n| !n.is_whitespace() && n != '-' && n != ')') =>
            {
                out.push(Tok::Minus);
                rest = &rest[1..];
            }
            _ => {
                let end = rest
                    .find(|c: char| c.is_whitespace() || matches!(c, '"' | '(' | ')'))
                    .unwrap_or(rest.len());
                let word = &rest[..end];
                rest = &rest[end..];
                match word {
                    "AND" => out.push(Tok::And),
                    "OR" => out.push(Tok::Or),
                    "NOT" => out.push(Tok::Not),
                    _ => {
                        let field = word
                            .split_once(':')
                            .and_then(|(f, w)| Some((field_named(f)?, w)));
                        match field {
                            Some((f, "")) if rest.starts_with('"') => {
                                let end = rest[1..].find('"').ok_or(())?;
                                out.push(Tok::Phrase(rest[1..1 + end].into(), Some(f)));
                                rest = &rest[end + 2..];
                            }
                            Some((_, "")) => return Err(()),
                            Some((f, w)) => out.push(Tok::Word(w.into(), Some(f))),
                            None => out.push(Tok::Word(word.into(), None)),
                        }
                    }
                }
            }
        }
    }
    Ok(out)
}

struct Parser {
    toks: Vec<Tok>,
    at: usize,
}

type Parsed = Result<Option<Node>, ()>;

impl Parser {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.at)
    }

    fn eat(&mut self, t: &Tok) -> bool {
        if self.peek() == Some(t) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn or(&mut self) -> Parsed {
        let mut parts: Vec<Node> = self.and()?.into_iter().collect();
        while self.eat(&Tok::Or) {
            parts.extend(self.and()?);
        }
        Ok(match parts.len() {
            0 => None,
            1 => parts.pop(),
            _ => Some(Node::Or(parts)),
        })
    }

    fn and(&mut self) -> Parsed {
        let mut parts: Vec<Node> = self.unary()?.into_iter().collect();
        let mut explicit = false;
        loop {
            if self.eat(&Tok::And) {
                explicit = true;
            } else if matches!(self.peek(), None | Some(Tok::Or) | Some(Tok::Close)) {
                break;
            }
            parts.extend(self.unary()?);
        }
        Ok(match parts.len() {
            0 => None,
            1 => parts.pop(),
            _ => Some(Node::And(parts, !explicit)),
        })
    }

    fn unary(&mut self) -> Parsed {
        if self.eat(&Tok::Not) || self.eat(&Tok::Minus) {
            return Ok(self.unary()?.map(|n| Node::Not(Box::new(n))));
        }
        self.primary()
    }

    fn primary(&mut self) -> Parsed {
        let tok = self.toks.get(self.at).cloned().ok_or(())?;
        self.at += 1;
        match tok {
            Tok::Word(w, field) => Ok(words(&w, field, false)),
            Tok::Phrase(p, field) => Ok(words(&p, field, true)),
            Tok::Open => {
                let inner = self.or()?;
                if !self.eat(&Tok::Close) {
                    return Err(());
                }
                // `()` is as wrong as a dangling operator.
                inner.map(Some).ok_or(())
            }
            _ => Err(()),
        }
    }
}

/// The node for a word or a quoted phrase. An unquoted word's possessive `'s` is dropped
/// (`Caroline's` is `caroline`, not the phrase `caroline s`).
fn words(text: &str, field: Option<usize>, quoted: bool) -> Option<Node> {
    let mut terms = token_list(text);
    if !quoted && terms.len() == 2 && terms[1] == "s" && text.contains(['\'', '’']) {
        terms.pop();
    }
    match terms.len() {
        0 => None,
        1 => Some(Node::Word {
            text: terms.pop().unwrap_or_default(),
            field,
            exact: quoted,
        }),
        _ => Some(Node::Phrase { terms, field }),
    }
}

/// Plain words: every token of the query (operators left out), implicitly ANDed.
pub fn plain(query: &str) -> Option<Node> {
    let mut parts: Vec<Node> = query
        .split_whitespace()
        .filter(|w| !matches!(*w, "AND" | "OR" | "NOT"))
        .flat_map(token_list)
        .map(|text| Node::Word {
            text,
            field: None,
            exact: false,
        })
        .collect();
    match parts.len() {
        0 => None,
        1 => parts.pop(),
        _ => Some(Node::And(parts, true)),
    }
}

/// The query without the stopwords of its implicit conjunctions (words side by side, as in
/// a question), unless that would leave a conjunction empty: `what did Caroline say` is
/// `Caroline say`, while `"the who"`, `the AND who`, `name:the` and `the` stay as written.
pub fn without_stopwords(node: Node) -> Node {
    match node {
        Node::And(parts, true) => {
            let stop = |p: &Node| matches!(p, Node::Word { text, field: None, exact: false } if is_stopword(text));
            let parts: Vec<Node> = if parts.iter().all(stop) {
                parts
            } else {
                parts.into_iter().filter(|p| !stop(p)).collect()
            };
            let mut parts: Vec<Node> = parts.into_iter().map(without_stopwords).collect();
            match parts.len() {
                1 => parts.pop().unwrap_or(Node::And(Vec::new(), true)),
                _ => Node::And(parts, true),
            }
        }
        Node::And(parts, false) => {
            Node::And(parts.into_iter().map(without_stopwords).collect(), false)
        }
        Node::Or(parts) => Node::Or(parts.into_iter().map(without_stopwords).collect()),
        other => other,
    }
}

/// The part of a query every hit must satisfy, however it was found: its phrases, quoted
/// words, words in a field, exclusions, and what an explicit `AND` or `OR` joins. `None`
/// when the query is plain words, which meaning may stand in for.
pub fn constraint(node: &Node) -> Option<Node> {
    match node {
        Node::Word {
            field: None,
            exact: false,
            ..
        } => None,
        Node::Word { .. } | Node::Phrase { .. } | Node::Not(_) => Some(node.clone()),
        Node::And(parts, true) => {
            let mut hard: Vec<Node> = parts.iter().filter_map(constraint).collect();
            match hard.len() {
                0 => None,
                1 => hard.pop(),
                _ => Some(Node::And(hard, false)),
            }
        }
        Node::And(_, false) | Node::Or(_) => Some(node.clone()),
    }
}

/// The words a query looks for, as one text to embed: every word and phrase not under an
/// exclusion (an excluded word's meaning is what the query does not want).
pub fn meaning_text(node: &Node) -> String {
    fn walk(node: &Node, out: &mut String) {
        let mut push = |w: &str| {
            if !out.is_empty() {
                out.push(' ');
            }
            out.push_str(w);
        };
        match node {
            Node::Word { text, .. } => push(text),
            Node::Phrase { terms, .. } => terms.iter().for_each(|t| push(t)),
            Node::And(parts, _) | Node::Or(parts) => parts.iter().for_each(|p| walk(p, out)),
            Node::Not(_) => {}
        }
    }
    let mut out = String::new();
    walk(node, &mut out);
    out
}

/// Parses a query; `None` when it holds nothing to search for.
#[inline(never)]
pub fn parse(query: &str) -> Option<Node> {
    let parsed = lex(query).and_then(|toks| {
        let mut p = Parser { toks, at: 0 };
        let node = p.or()?;
        if p.at < p.toks.len() {
            return Err(()); // a stray `)`
        }
        Ok(node)
    });
    parsed.unwrap_or_else(|()| plain(query))
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    fn w(t: &str) -> Node {
        Node::Word {
            text: t.into(),
            field: None,
            exact: false,
        }
    }

    #[test]
    fn parses_the_syntax() {
        assert_eq!(parse("alice"), Some(w("alice")));
        assert_eq!(parse("  "), None);
        assert_eq!(parse("!!! ..."), None);
        assert_eq!(parse("a b"), Some(Node::And(vec![w("a"), w("b")], true)));
        assert_eq!(
            parse("a AND b c"),
            Some(Node::And(vec![w("a"), w("b"), w("c")], false))
        );
        assert_eq!(
            parse("a OR b c"),
            Some(Node::Or(vec![
                w("a"),
                Node::And(vec![w("b"), w("c")], true)
            ]))
        );
        assert_eq!(
            parse("a -b NOT c"),
            Some(Node::And(
                vec![
                    w("a"),
                    Node::Not(Box::new(w("b"))),
                    Node::Not(Box::new(w("c")))
                ],
                true
            ))
        );
        assert_eq!(
            parse("name:\"Café Noir\" type:Person"),
            Some(Node::And(
                vec![
                    Node::Phrase {
                        terms: vec!["cafe".into(), "noir".into()],
                        field: Some(NAME)
                    },
                    Node::Word {
                        text: "person".into(),
                        field: Some(TYPE),
                        exact: false
                    }
                ],
                true
            ))
        );
        assert_eq!(
            parse("\"x\""),
            Some(Node::Word {
                text: "x".into(),
                field: None,
                exact: true
            })
        );
        assert_eq!(
            parse("e-mail"),
            Some(Node::Phrase {
                terms: vec!["e".into(), "mail".into()],
                field: None
            })
        );
        assert_eq!(
            parse("(a OR b) -(c)"),
            Some(Node::And(
                vec![Node::Or(vec![w("a"), w("b")]), Node::Not(Box::new(w("c")))],
                true
            ))
        );
        assert_eq!(parse("a - b"), Some(Node::And(vec![w("a"), w("b")], true)));
        assert_eq!(parse("http://x"), Some(parse("\"http x\"").unwrap()));
    }

    #[test]
    fn what_does_not_parse_is_plain_words() {
        let ab = Some(Node::And(vec![w("a"), w("b")], true));
        assert_eq!(parse("\"a b"), ab);
        assert_eq!(parse("a AND b AND"), ab);
        assert_eq!(parse("OR a b"), ab);
        assert_eq!(parse("(a b"), ab);
        assert_eq!(parse("a) b"), ab);
        assert_eq!(parse("a () b"), ab);
        assert_eq!(
            parse("name: a"),
            Some(Node::And(vec![w("name"), w("a")], true))
        );
        assert_eq!(parse("NOT"), None);
        assert_eq!(parse("\""), None);
    }
}
