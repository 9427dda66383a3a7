//! JSON text helpers shared by message parsing, tool output and file import.

use alloc::string::String;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// The type name JavaScript (and so zod) reports for a value (`None` is a missing value).
pub fn type_name(value: Option<&Value>) -> &'static str {
    match value {
        None => "undefined",
        Some(Value::Null) => "null",
        Some(Value::Bool(_)) => "boolean",
        Some(Value::Number(_)) => "number",
        Some(Value::String(_)) => "string",
        Some(Value::Array(_)) => "array",
        Some(Value::Object(_)) => "object",
    }
}

/// Serializes a number as JavaScript writes it: a whole number without a fraction (`7`, not
/// `7.0`). For `#[serde(serialize_with)]` on an `Option<f64>`.
pub fn js_number<S: serde::Serializer>(x: &Option<f64>, s: S) -> Result<S::Ok, S::Error> {
    match *x {
        Some(x) if (-9e15..9e15).contains(&x) && (x as i64) as f64 == x => {
            s.serialize_some(&(x as i64))
        }
        Some(x) => s.serialize_some(&x),
        None => s.serialize_none(),
    }
}

/// `JSON.stringify(value, null, 2)`.
pub fn pretty<T: Serialize + ?Sized>(value: &T) -> String {
    serde_json::to_string_pretty(value).expect("our JSON shapes always serialize")
}

/// Compact JSON text, as `JSON.stringify(value)`.
pub fn compact<T: Serialize + ?Sized>(value: &T) -> String {
    serde_json::to_string(value).expect("our JSON shapes always serialize")
}

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

const LO: u64 = 0x0101_0101_0101_0101;
const HI: u64 = 0x8080_8080_8080_8080;

/// Whether any byte of `w` is a control character, `"` or `\\`.
fn needs_escape(w: u64) -> bool {
    let has_zero = |v: u64| v.wrapping_sub(LO) & !v & HI;
    (w.wrapping_sub(LO * 0x20) & !w & HI)
        | has_zero(w ^ (LO * b'"' as u64))
        | has_zero(w ^ (LO * b'\\' as u64))
        != 0
}

/// Length of the prefix of `b` that needs no escaping (checked eight bytes at a time).
fn safe_prefix(b: &[u8]) -> usize {
    let mut i = 0;
    while i + 8 <= b.len() {
        let mut w = [0u8; 8];
        w.copy_from_slice(&b[i..i + 8]);
        if needs_escape(u64::from_le_bytes(w)) {
            break;
        }
        i += 8;
    }
    while i < b.len() && !matches!(b[i], 0..=0x1f | b'"' | b'\\') {
        i += 1;
    }
    i
}

/// The escape `JSON.stringify` writes for a byte that needs one.
fn escape_of(byte: u8, buf: &mut [u8; 6]) -> &str {
    match byte {
        b'"' => "\\\"",
        b'\\' => "\\\\",
        b'\n' => "\\n",
        b'\r' => "\\r",
        b'\t' => "\\t",
        0x08 => "\\b",
        0x0c => "\\f",
        _ => {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            *buf = [
                b'\\',
                b'u',
                b'0',
                b'0',
                HEX[(byte >> 4) as usize],
                HEX[(byte & 15) as usize],
            ];
            core::str::from_utf8(buf).unwrap_or_default()
        }
    }
}

/// Copies `s` to `out`, handing each byte that needs an escape to `escape` as its
/// `JSON.stringify` escape sequence.
fn escape_with(out: &mut String, s: &str, escape: impl Fn(&mut String, &str)) {
    let b = s.as_bytes();
    let mut at = 0;
    while at < b.len() {
        let run = safe_prefix(&b[at..]);
        out.push_str(&s[at..at + run]);
        at += run;
        if at < b.len() {
            escape(out, escape_of(b[at], &mut [0; 6]));
            at += 1;
        }
    }
}

/// Appends the body of `s` as a JSON string literal (without quotes), escaped as
/// `JSON.stringify` does: `"`, `\\`, and control characters; nothing else.
pub fn escape_into(out: &mut String, s: &str) {
    escape_with(out, s, |out, e| out.push_str(e));
}

/// Appends `s` escaped twice: the body of a JSON string inside JSON text that is itself the
/// body of a JSON string (a tool result's text).
pub fn escape_twice_into(out: &mut String, s: &str) {
    escape_with(out, s, escape_into);
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

/// `x` rounded to `places` decimals, halves away from zero: scores as answers show them.
pub fn round(x: f64, places: i32) -> f64 {
    let scale = libm::pow(10.0, f64::from(places));
    libm::round(x * scale) / scale
}

/// `x` rounded to four decimals ([`round`]).
pub fn round4(x: f64) -> f64 {
    round(x, 4)
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
    fn escaping_matches_serde_json_once_and_twice() {
        let samples = [
            "",
            "plain ascii text that is longer than eight bytes",
            "quote \" backslash \\ newline \n tab \t cr \r bs \u{8} ff \u{c} nul \u{0} \u{1f} del \u{7f}",
            "é東京😀\u{2028}\u{2029}/</script>",
            "\"\"\"\"\"\"\"\"\"",
            "12345678\n1234567\"",
        ];
        for s in samples {
            let mut once = String::new();
            escape_into(&mut once, s);
            let expected = serde_json::to_string(s).unwrap();
            assert_eq!(alloc::format!("\"{once}\""), expected);
            let mut twice = String::new();
            escape_twice_into(&mut twice, s);
            assert_eq!(
                alloc::format!("\"{twice}\""),
                serde_json::to_string(&expected[1..expected.len() - 1]).unwrap()
            );
        }
    }

    #[test]
    fn valid_text_is_untouched() {
        let (v, n): (Value, usize) = parse_lenient(r#"{"a":"\ud83d\ude00 é"}"#).unwrap();
        assert_eq!((v["a"].as_str(), n), (Some("😀 é"), 0));
    }
}
