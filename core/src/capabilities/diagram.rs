//! Text in diagram formats, written so it parses whatever the names hold: DOT quoted
//! strings and Mermaid labels. Every export that writes DOT or Mermaid quotes with these.

use alloc::string::String;
use core::fmt::Write;

/// Writes `text` as a DOT quoted string, quotes included: `"` and `\` escaped, line breaks
/// as `\n`, other control characters as `&#<decimal>;`.
pub fn dot_string(out: &mut String, text: &str) {
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if c.is_control() => {
                let _ = write!(out, "&#{};", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Characters a Mermaid label keeps as they are (besides letters and digits).
fn mermaid_plain(c: char) -> bool {
    c.is_ascii_alphanumeric()
        || matches!(
            c,
            ' ' | '_' | '-' | '.' | ',' | '/' | '\'' | '!' | '?' | '@' | '+' | '=' | '~'
        )
        || (!c.is_ascii() && !c.is_control() && !c.is_whitespace())
}

/// Writes `text` as the inside of a quoted Mermaid label (everything but letters,
/// digits, inner spaces and a few harmless marks as a Mermaid entity code `#<decimal>;`;
/// non-ASCII text as it is unless a control or space character; the empty text as `" "`,
/// which Mermaid accepts).
pub fn mermaid_label(out: &mut String, text: &str) {
    if text.is_empty() {
        out.push(' ');
        return;
    }
    for (i, c) in text.char_indices() {
        // Leading and trailing spaces are coded too, or Mermaid would trim them.
        let at_edge = i == 0 || i + c.len_utf8() == text.len();
        if mermaid_plain(c) && !(c == ' ' && at_edge) {
            out.push(c);
        } else {
            let _ = write!(out, "#{};", u32::from(c));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::String;

    fn label(text: &str) -> String {
        let mut out = String::new();
        mermaid_label(&mut out, text);
        out
    }

    fn quoted(text: &str) -> String {
        let mut out = String::new();
        dot_string(&mut out, text);
        out
    }

    #[test]
    fn mermaid_label_codes_every_character_that_could_end_or_bend_the_label() {
        assert_eq!(label("Alice Smith"), "Alice Smith");
        assert_eq!(label("a\"b"), "a#34;b");
        assert_eq!(label("#1;"), "#35;1#59;");
        assert_eq!(label("x]|y-->z"), "x#93;#124;y--#62;z");
        assert_eq!(label("line\nbreak\r"), "line#10;break#13;");
        assert_eq!(label(" pad "), "#32;pad#32;");
        assert_eq!(label(""), " ");
        assert_eq!(label("é😀\u{2028}"), "é😀#8232;");
        assert_eq!(
            label("style:x;%%{init}%%`"),
            "style#58;x#59;#37;#37;#123;init#125;#37;#37;#96;"
        );
    }

    #[test]
    fn dot_string_escapes_quotes_backslashes_and_line_breaks() {
        assert_eq!(quoted("plain"), "\"plain\"");
        assert_eq!(quoted(""), "\"\"");
        assert_eq!(quoted("a\"b"), r#""a\"b""#);
        assert_eq!(quoted("end\\"), r#""end\\""#);
        assert_eq!(quoted("two\nlines"), r#""two\nlines""#);
        assert_eq!(quoted("tab\there\u{0}"), "\"tab&#9;here&#0;\"");
        assert_eq!(quoted("é😀 -> {}"), "\"é😀 -> {}\"");
    }
}
