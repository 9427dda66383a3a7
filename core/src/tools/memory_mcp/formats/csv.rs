//! CSV: the seed's two sections (`# ENTITIES`, `# RELATIONS`), each a header and rows;
//! lists (`observations`, `tags`) joined by `; `; a field starting with `= + - @`, a tab or
//! a carriage return gets a `'` in front (against formula injection).
//!
//! Read with a real CSV reader ([`csv_core`]): quoted fields may hold commas, quotes and line
//! breaks (the seed splits lines first, so a quoted line break breaks its import). The
//! header names the columns, in any order (the seed assumes its own order); `'` is taken
//! off again before a formula character. A row outside a section, with more fields than
//! its header, or without the required columns, a header naming an unknown column, and a
//! quote left open are refused, naming the line.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;
use csv_core::{ReadRecordResult, Reader};

use super::{Doc, Fields, Read, RelationFields, importance_text, js_number, split_list};

/// Characters a spreadsheet reads as the start of a formula.
const FORMULA: [char; 6] = ['=', '+', '-', '@', '\t', '\r'];

/// One field as the seed writes it (with `\r` quoted too, so it reads back).
fn field(out: &mut String, value: Option<&str>) {
    let v = value.unwrap_or_default();
    let prefix = if v.starts_with(FORMULA) { "'" } else { "" };
    if v.contains([',', '"', '\n', '\r']) {
        out.push('"');
        out.push_str(prefix);
        out.push_str(&v.replace('"', "\"\""));
        out.push('"');
    } else {
        out.push_str(prefix);
        out.push_str(v);
    }
}

/// A row of these fields.
fn row(out: &mut String, fields: &[Option<&str>]) {
    for (i, f) in fields.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        field(out, *f);
    }
    out.push('\n');
}

/// The graph as the seed's csv export.
pub(crate) fn write(doc: &Doc<'_>) -> String {
    let mut out = String::from(
        "# ENTITIES\nname,entityType,observations,createdAt,lastModified,tags,importance\n",
    );
    for e in &doc.entities {
        let importance = e.importance.map(js_number);
        row(
            &mut out,
            &[
                Some(e.entity.name),
                Some(e.entity.entity_type),
                Some(&e.entity.observations.join("; ")),
                e.created.as_deref(),
                e.updated.as_deref(),
                Some(&e.tags.join("; ")),
                importance.as_deref(),
            ],
        );
    }
    out.push_str("\n# RELATIONS\nfrom,to,relationType,createdAt,lastModified");
    for r in &doc.relations {
        out.push('\n');
        row(
            &mut out,
            &[
                Some(r.relation.from),
                Some(r.relation.to),
                Some(r.relation.relation_type),
                r.created.as_deref(),
                r.updated.as_deref(),
            ],
        );
        out.pop();
    }
    out
}

/// The columns an entity row may have (`type`: the seed's streamed export's name for
/// `entityType`).
const ENTITY_COLUMNS: [&str; 8] = [
    "name",
    "entityType",
    "observations",
    "createdAt",
    "lastModified",
    "tags",
    "importance",
    "parentId",
];
/// The columns a relation row may have.
const RELATION_COLUMNS: [&str; 5] = ["from", "to", "relationType", "createdAt", "lastModified"];

/// Which section rows belong to, and its columns once its header is read.
#[derive(Clone, Copy, PartialEq)]
enum Section {
    Entities,
    Relations,
}

/// A header: for each column, its index in the section's column list.
fn header(section: Section, fields: &[&str], line: usize) -> Result<Vec<usize>, String> {
    let known: &[&str] = match section {
        Section::Entities => &ENTITY_COLUMNS,
        Section::Relations => &RELATION_COLUMNS,
    };
    let mut columns = Vec::new();
    for f in fields {
        let name = match (section, f.trim()) {
            (Section::Entities, "type") => "entityType",
            (_, name) => name,
        };
        let at = known.iter().position(|k| *k == name).ok_or_else(|| {
            format!(
                "line {line}: unknown column {name:?} (the columns are {})",
                known.join(", ")
            )
        })?;
        if columns.contains(&at) {
            return Err(format!("line {line}: column {name:?} twice"));
        }
        columns.push(at);
    }
    let required = match section {
        Section::Entities => 2,
        Section::Relations => 3,
    };
    if let Some(missing) = (0..required).find(|c| !columns.contains(c)) {
        return Err(format!(
            "line {line}: the header has no column {:?}",
            known[missing]
        ));
    }
    Ok(columns)
}

/// A value as written, without the `'` the writer put before a formula character.
fn unescape(value: &str) -> &str {
    match value.strip_prefix('\'') {
        Some(rest) if rest.starts_with(FORMULA) => rest,
        _ => value,
    }
}

/// Reads the seed's CSV.
pub fn read(data: &str) -> Result<Read, String> {
    let bytes = data.as_bytes();
    let mut reader = Reader::new();
    let (mut out, mut ends) = (vec![0u8; 1024], vec![0usize; 16]);
    let (mut out_len, mut ends_len) = (0, 0);
    let mut pos = 0;
    let (mut counted, mut newlines) = (0, 0);
    let mut section: Option<(Section, Option<Vec<usize>>)> = None;
    let mut read = Read::default();
    let (mut entity_rows, mut relation_rows) = (0, 0);
    loop {
        let start_of_call = pos;
        let (result, n_in, n_out, n_ends) =
            reader.read_record(&bytes[pos..], &mut out[out_len..], &mut ends[ends_len..]);
        pos += n_in;
        out_len += n_out;
        ends_len += n_ends;
        match result {
            ReadRecordResult::InputEmpty => {
                if start_of_call == bytes.len() {
                    // Told the input ended, the reader has nothing more.
                    break;
                }
            }
            ReadRecordResult::OutputFull => out.resize(out.len() * 2, 0),
            ReadRecordResult::OutputEndsFull => ends.resize(ends.len() * 2, 0),
            ReadRecordResult::End => break,
            ReadRecordResult::Record => {
                let raw_end = pos;
                let record = &out[..out_len];
                let mut fields = Vec::with_capacity(ends_len);
                let mut from = 0;
                for &end in &ends[..ends_len] {
                    fields.push(core::str::from_utf8(&record[from..end]).unwrap_or_default());
                    from = end;
                }
                // The line the record starts on: past the line breaks before it.
                let start = bytes[counted..raw_end]
                    .iter()
                    .position(|&b| b != b'\n' && b != b'\r')
                    .map_or(raw_end, |p| counted + p);
                newlines += bytes[counted..start]
                    .iter()
                    .filter(|&&b| b == b'\n')
                    .count();
                let line = newlines + 1;
                let raw = &bytes[start..raw_end];
                newlines += raw.iter().filter(|&&b| b == b'\n').count();
                counted = raw_end;
                if raw.iter().filter(|&&b| b == b'"').count() % 2 == 1 {
                    return Err(format!("line {line}: a quoted field is not closed"));
                }
                out_len = 0;
                ends_len = 0;
                if fields.iter().all(|f| f.is_empty()) {
                    continue;
                }
                if fields.len() == 1 && fields[0].starts_with('#') {
                    let marker = fields[0].trim();
                    if marker.starts_with("# ENTITIES") {
                        section = Some((Section::Entities, None));
                    } else if marker.starts_with("# RELATIONS") {
                        section = Some((Section::Relations, None));
                    }
                    continue;
                }
                let Some((kind, columns)) = &mut section else {
                    return Err(format!(
                        "line {line}: a row before any \"# ENTITIES\" or \"# RELATIONS\" line"
                    ));
                };
                let Some(columns) = columns else {
                    *columns = Some(header(*kind, &fields, line)?);
                    continue;
                };
                if fields.len() > columns.len() {
                    return Err(format!(
                        "line {line}: {} fields, more than the header's {}",
                        fields.len(),
                        columns.len()
                    ));
                }
                let mut by_column = [""; ENTITY_COLUMNS.len()];
                for (f, &c) in fields.iter().zip(columns.iter()) {
                    by_column[c] = unescape(f);
                }
                let given = |c: usize| (!by_column[c].is_empty()).then_some(by_column[c]);
                if *kind == Section::Entities {
                    entity_rows += 1;
                    let at = || format!("entity {entity_rows} (line {line})");
                    match importance_text(by_column[6]) {
                        Ok(importance) => read.entity(
                            at,
                            Fields {
                                name: by_column[0].to_string(),
                                entity_type: by_column[1].to_string(),
                                observations: split_list(by_column[2]),
                                created: given(3).map(ToString::to_string),
                                updated: given(4).map(ToString::to_string),
                                tags: split_list(by_column[5]),
                                importance,
                                parent: given(7).map(ToString::to_string),
                            },
                        ),
                        Err(why) => read.error(at, why),
                    }
                } else {
                    relation_rows += 1;
                    read.relation(
                        || format!("relation {relation_rows} (line {line})"),
                        RelationFields {
                            from: by_column[0],
                            to: by_column[1],
                            relation_type: by_column[2],
                            created: given(3),
                            updated: given(4),
                        },
                    );
                }
            }
        }
    }
    Ok(read)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_counted_past_quoted_line_breaks_blank_lines_and_crlf() {
        let data = "# ENTITIES\r\nname,entityType,observations\r\n\r\na,t,\"one\r\ntwo\"\r\n\r\n\r\nb,t,x\r\nc,,x\n";
        let read = read(data).unwrap();
        assert_eq!(read.entities.len(), 2);
        assert_eq!(read.entities[0].observations, ["one\r\ntwo"]);
        assert_eq!(
            read.errors,
            ["entity 3 (line 9): entityType is empty"],
            "{:?}",
            read.errors
        );
        let data = "# RELATIONS\nfrom,to,relationType\n\na,b,\"c\nd\"\nx,\"y,z\n";
        let err = super::read(data).unwrap_err();
        assert_eq!(err, "line 6: a quoted field is not closed");
    }

    #[test]
    fn a_formula_guard_is_taken_off_again_and_the_seeds_header_order_is_not_needed() {
        let read = read("# ENTITIES\ntype,name,tags\nt,'-x,'a;B\n").unwrap();
        assert_eq!(read.entities[0].name, "-x");
        assert_eq!(
            read.entities[0].meta.as_ref().map(|m| m.tags.clone()),
            Some(["'a".into(), "b".into()].to_vec())
        );
    }
}
