//! JSON text helpers shared by message parsing and file import.

use alloc::string::String;
use serde::de::DeserializeOwned;

/// Parses JSON text, first replacing lone UTF-16 surrogate escapes (which serde_json refuses,
/// and which JavaScript writes) with U+FFFD. Returns the value and how many were replaced.
pub fn parse_lenient<T: DeserializeOwned>(text: &str) -> Result<(T, usize), serde_json::Error> {
    match serde_json::from_str(text) {
        Ok(v) => Ok((v, 0)),
        Err(e) => match replace_lone_surrogates(text) {
            Some((fixed, n)) => serde_json::from_str(&fixed).map(|v| (v, n)),
            None => Err(e),
        },
    }
}

/// Rewrites `\uD800`–`\uDFFF` escapes that are not part of a surrogate pair to `\ufffd`.
/// Returns `None` when the text has none.
pub fn replace_lone_surrogates(text: &str) -> Option<(String, usize)> {
    let b = text.as_bytes();
    let mut out = String::new();
    let mut copied = 0; // bytes of `text` already in `out`
    let mut replaced = 0;
    let mut in_string = false;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'"' => in_string = !in_string,
            b'\\' if in_string => {
                if let Some(unit) = escape_unit(b, i) {
                    let is_high = (0xD800..0xDC00).contains(&unit);
                    let paired_low = escape_unit(b, i + 6).filter(|u| (0xDC00..0xE000).contains(u));
                    if is_high && paired_low.is_some() {
                        i += 12;
                        continue;
                    }
                    if (0xD800..0xE000).contains(&unit) {
                        out.push_str(&text[copied..i]);
                        out.push_str("\\ufffd");
                        copied = i + 6;
                        replaced += 1;
                    }
                    i += 6;
                    continue;
                }
                i += 2; // any other escape: skip the escaped byte
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    if replaced == 0 {
        return None;
    }
    out.push_str(&text[copied..]);
    Some((out, replaced))
}

/// The code unit of a `\uXXXX` escape starting at `at`, if there is one.
fn escape_unit(b: &[u8], at: usize) -> Option<u32> {
    let esc = b.get(at..at + 6)?;
    if esc[0] != b'\\' || esc[1] != b'u' {
        return None;
    }
    let hex = core::str::from_utf8(&esc[2..]).ok()?;
    u32::from_str_radix(hex, 16).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    #[test]
    fn lone_surrogates_become_replacement_characters() {
        let (v, n): (Value, usize) =
            parse_lenient(r#"["\ud800", "a\udfffb", "\udbff\udbff", "x\ud83d", "\ud83d\ude00"]"#)
                .unwrap();
        assert_eq!(n, 5);
        assert_eq!(
            v,
            serde_json::json!([
                "\u{fffd}",
                "a\u{fffd}b",
                "\u{fffd}\u{fffd}",
                "x\u{fffd}",
                "😀"
            ])
        );
    }

    #[test]
    fn escaped_backslash_before_u_is_not_an_escape() {
        assert_eq!(replace_lone_surrogates(r#"["\\ud800"]"#), None);
    }

    #[test]
    fn valid_text_is_untouched() {
        let (v, n): (Value, usize) = parse_lenient(r#"{"a":"\ud83d\ude00 é"}"#).unwrap();
        assert_eq!((v["a"].as_str(), n), (Some("😀 é"), 0));
    }
}
