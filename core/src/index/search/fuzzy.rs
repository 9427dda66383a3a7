//! Terms within a small edit distance of a word: a walk over the sorted term list that
//! shares the distance table between terms with a common prefix and skips every term under
//! a prefix that is already too far (as a walk of a trie would).
//!
//! The distance is the optimal-string-alignment distance: insertions, deletions,
//! substitutions and transpositions of two adjacent characters each cost one, so "jhon" is
//! one edit from "john".

use alloc::vec::Vec;

use super::index::{SearchIndex, key8};

/// The end of the run of terms starting with `prefix` that holds position `i`.
fn skip(index: &SearchIndex, sorted: &[u32], keys: &[u64], i: usize, prefix: &str) -> usize {
    let has = |at: usize| -> bool {
        if prefix.len() <= 8 {
            let mask = !0u64 << (64 - 8 * prefix.len() as u32);
            keys[at] & mask == key8(prefix) & mask
        } else {
            index.terms[sorted[at] as usize].text.starts_with(prefix)
        }
    };
    // Gallop, then bisect: runs are short.
    let (mut last, mut next, mut step) = (i, i + 1, 1);
    while next < sorted.len() && has(next) {
        last = next;
        next += step;
        step *= 2;
    }
    let (mut lo, mut hi) = (last + 1, next.min(sorted.len()));
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if has(mid) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

/// The largest number of edits allowed for a word of `chars` characters: none below 4,
/// one up to 7, two from 8.
pub(crate) fn max_edits(chars: usize) -> u32 {
    match chars {
        0..=3 => 0,
        4..=7 => 1,
        _ => 2,
    }
}

/// Live terms at distance 1..=`max` from `word` (given as chars) that begin with its first
/// `lead` characters, with their distance.
pub(crate) fn near(index: &SearchIndex, word: &[char], max: u32, lead: usize) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    if max == 0 {
        return out;
    }
    let w = word.len();
    let stride = w + 1;
    let lead: alloc::string::String = word.iter().take(lead).collect();
    index.with_sorted(|sorted, keys| {
        let text = |id: u32| &*index.terms[id as usize].text;
        let lo = sorted.partition_point(|&id| text(id) < lead.as_str());
        let hi = match sorted.get(lo) {
            _ if lead.is_empty() => sorted.len(),
            Some(&id) if text(id).starts_with(lead.as_str()) => {
                skip(index, sorted, keys, lo, &lead)
            }
            _ => lo,
        };
        let sorted = &sorted[..hi];
        // Row d (at rows[d*stride..]) is the distance row after the first d characters of
        // the current term, whose characters are `path`.
        let mut rows: Vec<u32> = (0..=w as u32).collect();
        let mut path: Vec<char> = Vec::new();
        let mut prefix = alloc::string::String::new();
        let mut i = lo;
        while i < sorted.len() {
            let id = sorted[i];
            // The term's characters, from its key while they are ASCII (most terms are read
            // no further than the key: the walk prunes early), then from its text.
            let kb = keys[i].to_be_bytes();
            let ascii = kb.iter().take_while(|&&b| b != 0 && b < 0x80).count();
            let whole = ascii < 8 && kb[ascii] == 0;
            let mut at = 0;
            let mut tail: Option<core::str::Chars<'_>> = None;
            let mut next = || {
                if at < ascii {
                    at += 1;
                    return Some(kb[at - 1] as char);
                }
                if whole {
                    return None;
                }
                tail.get_or_insert_with(|| text(id)[ascii..].chars()).next()
            };
            // Keep the rows of the prefix shared with the previous term.
            let mut common = 0;
            let mut c = next();
            while let Some(x) = c {
                if common < path.len() && path[common] == x {
                    common += 1;
                    c = next();
                } else {
                    break;
                }
            }
            path.truncate(common);
            rows.truncate((common + 1) * stride);
            let mut pruned = false;
            while let Some(ch) = c {
                let d = path.len() + 1;
                let base = (d - 1) * stride;
                rows.push(d as u32);
                let mut best = d as u32;
                for j in 1..=w {
                    let cost = u32::from(word[j - 1] != ch);
                    let mut v = (rows[base + j] + 1)
                        .min(rows[base + stride + j - 1] + 1)
                        .min(rows[base + j - 1] + cost);
                    if d > 1 && j > 1 && ch == word[j - 2] && path[d - 2] == word[j - 1] {
                        v = v.min(rows[base - stride + j - 2] + 1);
                    }
                    rows.push(v);
                    best = best.min(v);
                }
                path.push(ch);
                if best > max || d > w + max as usize {
                    pruned = true;
                    break;
                }
                c = next();
            }
            if pruned {
                // Skip every term sharing this hopeless prefix.
                prefix.clear();
                prefix.extend(path.iter());
                i = skip(index, sorted, keys, i, &prefix);
            } else {
                let dist = rows[path.len() * stride + w];
                if dist > 0 && dist <= max {
                    out.push((id, dist));
                }
                i += 1;
            }
        }
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::Graph;
    use crate::index::search::SearchIndex;
    use crate::model::Entity;
    use crate::record::{Op, Record};
    use alloc::string::String;
    use alloc::vec;

    /// The distance by the textbook table.
    fn osa(a: &str, b: &str) -> u32 {
        let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
        let mut d = vec![vec![0u32; b.len() + 1]; a.len() + 1];
        for (i, row) in d.iter_mut().enumerate() {
            row[0] = i as u32;
        }
        for (j, cell) in d[0].iter_mut().enumerate() {
            *cell = j as u32;
        }
        for i in 1..=a.len() {
            for j in 1..=b.len() {
                let cost = u32::from(a[i - 1] != b[j - 1]);
                let mut v = (d[i - 1][j] + 1)
                    .min(d[i][j - 1] + 1)
                    .min(d[i - 1][j - 1] + cost);
                if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                    v = v.min(d[i - 2][j - 2] + 1);
                }
                d[i][j] = v;
            }
        }
        d[a.len()][b.len()]
    }

    #[test]
    fn finds_exactly_the_terms_a_full_scan_finds() {
        let words = [
            "john",
            "jon",
            "joan",
            "johnny",
            "jhon",
            "ohn",
            "johns",
            "jo",
            "a",
            "ab",
            "abc",
            "abcd",
            "bacd",
            "abdc",
            "project",
            "projects",
            "prject",
            "porject",
            "zoë",
            "zoe",
            "zoey",
            "café",
            "cafe",
            "caffe",
            "muller",
            "mueller",
            "müller",
            "x",
            "xy",
            "yx",
            "abcdefghijk",
            "abcdefghijl",
            "abcdefghij",
            "bacdefghijk",
            "jjohn",
            "johnjohnjohn",
            "abcdefghikj",
            "abcdefgh",
            "abcdefghi",
        ];
        let obs = words.join(" ");
        let mut g = Graph::default();
        let entity = Entity {
            name: "n",
            entity_type: "t",
            observations: vec![&obs],
        };
        g.apply(&Record::from(Op::CreateEntities(vec![entity])), &mut ());
        let index = SearchIndex::build(&g);
        let index = &index;
        let terms: Vec<String> = index.with_sorted(|s, _| {
            s.iter()
                .map(|&id| String::from(&*index.terms[id as usize].text))
                .collect()
        });
        let queries = [
            "jhon",
            "john",
            "projcet",
            "zoe",
            "mueller",
            "abcd",
            "xy",
            "q",
            "",
            "abcdefghik",
        ];
        for q in queries {
            for (max, lead) in [(1, 0), (2, 0), (1, 1), (2, 1), (2, 2)] {
                let chars: Vec<char> = q.chars().collect();
                let mut got: Vec<(String, u32)> = near(index, &chars, max, lead)
                    .into_iter()
                    .map(|(id, d)| (String::from(&*index.terms[id as usize].text), d))
                    .collect();
                got.sort();
                let head: String = q.chars().take(lead).collect();
                let mut want: Vec<(String, u32)> = terms
                    .iter()
                    .filter(|t| t.starts_with(head.as_str()))
                    .map(|t| (t.clone(), osa(q, t)))
                    .filter(|&(_, d)| d > 0 && d <= max)
                    .collect();
                want.sort();
                assert_eq!(got, want, "{q} within {max} from {lead}");
            }
        }
    }
}
