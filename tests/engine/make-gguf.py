#!/usr/bin/env python3
"""Write a tiny random-weight llama model as GGUF v3, with the standard library only.

The model is useless as a language model but real to llama.cpp: it loads, mmaps its
weights and generates tokens.  The same arguments always give the same bytes.

usage: make-gguf.py OUT.gguf [--mib N] [--seed S]
"""

import argparse
import random
import struct
import sys

# GGUF metadata value types and ggml tensor types used here.
T_UINT32, T_INT32, T_FLOAT32, T_BOOL, T_STRING, T_ARRAY = 4, 5, 6, 7, 8, 9
GGML_F32 = 0
ALIGN = 32

# llama.cpp token types.
TOK_NORMAL, TOK_UNKNOWN, TOK_CONTROL, TOK_UNUSED, TOK_BYTE = 1, 2, 3, 5, 6

N_VOCAB, N_EMBD, N_HEAD, N_LAYER, N_CTX = 512, 256, 4, 2, 256
# Whole words fill the vocabulary up to N_VOCAB, so English prompts take fewer tokens.
WORDS = ("the of and to in is it that was for on are with as his they at be this from have or "
         "by one had not but what all were when we there can an your which their said if do "
         "will each about how up out them then she many some so these would other into has more "
         "her two like him see time could no make than first been its who now people my made "
         "over did down only way find use may water long little very after words called just "
         "where most know get through back much go good new write our me man too any day same "
         "right look think also around another came come work three word must because does part "
         "even place well such here take why things help put years different away again off "
         "went old number great tell men say small every found still between name should home "
         "numa node").split()


def vocab():
    """SentencePiece-style vocabulary: specials, 256 byte tokens, characters, words.

    Byte tokens >= 0x80 are typed UNUSED so that generated text is always valid UTF-8.
    """
    toks = [("<unk>", TOK_UNKNOWN), ("<s>", TOK_CONTROL), ("</s>", TOK_CONTROL)]
    toks += [(f"<0x{b:02X}>", TOK_BYTE if b < 0x80 else TOK_UNUSED) for b in range(256)]
    toks.append(("\u2581", TOK_NORMAL))  # the SentencePiece space marker
    toks += [(chr(c), TOK_NORMAL) for c in range(0x21, 0x7F)]
    toks += [("\u2581" + w, TOK_NORMAL) for w in WORDS[:N_VOCAB - len(toks)]]
    return toks


def shapes(n_vocab, n_ff):
    """Tensor names and GGUF dimensions (innermost first) of a llama model."""
    out = [("token_embd.weight", (N_EMBD, n_vocab))]
    for i in range(N_LAYER):
        b = f"blk.{i}."
        out += [(b + "attn_norm.weight", (N_EMBD,)),
                (b + "attn_q.weight", (N_EMBD, N_EMBD)),
                (b + "attn_k.weight", (N_EMBD, N_EMBD)),
                (b + "attn_v.weight", (N_EMBD, N_EMBD)),
                (b + "attn_output.weight", (N_EMBD, N_EMBD)),
                (b + "ffn_norm.weight", (N_EMBD,)),
                (b + "ffn_gate.weight", (N_EMBD, n_ff)),
                (b + "ffn_up.weight", (N_EMBD, n_ff)),
                (b + "ffn_down.weight", (n_ff, N_EMBD))]
    out += [("output_norm.weight", (N_EMBD,)), ("output.weight", (N_EMBD, n_vocab))]
    return out


def pick_n_ff(mib, n_vocab):
    """Feed-forward width that brings the f32 weights close to `mib` MiB."""
    fixed = 2 * n_vocab * N_EMBD + N_LAYER * 4 * N_EMBD * N_EMBD
    per_ff = N_LAYER * 3 * N_EMBD
    n_ff = (mib * 2**20 // 4 - fixed) // per_ff
    return max(64, n_ff // 64 * 64)


def gstr(s):
    b = s.encode()
    return struct.pack("<Q", len(b)) + b


def kv(key, vtype, value):
    """One metadata entry; arrays are given as (element type, [values])."""
    out = gstr(key) + struct.pack("<I", vtype)
    if vtype == T_ARRAY:
        etype, items = value
        out += struct.pack("<IQ", etype, len(items))
        return out + b"".join(scalar(etype, v) for v in items)
    return out + scalar(vtype, value)


def scalar(vtype, v):
    if vtype == T_STRING:
        return gstr(v)
    return struct.pack({T_UINT32: "<I", T_INT32: "<i", T_FLOAT32: "<f", T_BOOL: "<?"}[vtype], v)


CHUNK = 1 << 18  # floats generated at a time, to bound memory for big models


def random_f32(rng, count, exponent):
    """`count` little-endian f32 with random sign and mantissa, magnitude in [2^e, 2^(e+1)).

    Done as big-integer bit operations on random bytes, a chunk at a time: much faster
    than packing floats one by one, and still deterministic for a seeded generator.
    """
    keep = int.from_bytes(struct.pack("<I", 0x807FFFFF) * CHUNK, "little")
    expo = int.from_bytes(struct.pack("<I", (127 + exponent) << 23) * CHUNK, "little")
    for done in range(0, count, CHUNK):
        n = min(CHUNK, count - done) * 4
        bits = int.from_bytes(rng.randbytes(n), "little")
        yield ((bits & keep) | expo).to_bytes(CHUNK * 4, "little")[:n]


def tensor_data(name, dims, seed, silent_tokens):
    """The bytes of one tensor, in pieces."""
    count = 1
    for d in dims:
        count *= d
    if name.endswith("norm.weight"):
        yield struct.pack("<f", 1.0) * count
        return
    rng = random.Random(f"{seed}:{name}")
    if name != "output.weight":
        yield from random_f32(rng, count, -7)
        return
    # Large output weights make logits spread widely; zero rows give the tokens that
    # should never be generated (specials, bytes) a logit of 0, far below the best one.
    rows = bytearray(b"".join(random_f32(rng, count, -3)))
    zero = bytes(dims[0] * 4)
    for t in silent_tokens:
        rows[t * len(zero):(t + 1) * len(zero)] = zero
    yield bytes(rows)


def pad(n):
    return (ALIGN - n % ALIGN) % ALIGN


def write(path, mib, seed):
    toks = vocab()
    n_vocab = len(toks)
    n_ff = pick_n_ff(mib, n_vocab)
    tensors = shapes(n_vocab, n_ff)
    meta = [
        kv("general.architecture", T_STRING, "llama"),
        kv("general.name", T_STRING, f"numaplan-random-{mib}mib"),
        kv("general.alignment", T_UINT32, ALIGN),
        kv("general.file_type", T_UINT32, 0),  # all f32
        kv("llama.context_length", T_UINT32, N_CTX),
        kv("llama.embedding_length", T_UINT32, N_EMBD),
        kv("llama.block_count", T_UINT32, N_LAYER),
        kv("llama.feed_forward_length", T_UINT32, n_ff),
        kv("llama.attention.head_count", T_UINT32, N_HEAD),
        kv("llama.attention.head_count_kv", T_UINT32, N_HEAD),
        kv("llama.rope.dimension_count", T_UINT32, N_EMBD // N_HEAD),
        kv("llama.attention.layer_norm_rms_epsilon", T_FLOAT32, 1e-5),
        kv("llama.vocab_size", T_UINT32, n_vocab),
        kv("tokenizer.ggml.model", T_STRING, "llama"),
        kv("tokenizer.ggml.tokens", T_ARRAY, (T_STRING, [t for t, _ in toks])),
        # SentencePiece merges prefer higher scores: favour longer pieces.
        kv("tokenizer.ggml.scores", T_ARRAY, (T_FLOAT32, [float(len(t)) if k == TOK_NORMAL else 0.0
                                                          for t, k in toks])),
        kv("tokenizer.ggml.token_type", T_ARRAY, (T_INT32, [k for _, k in toks])),
        kv("tokenizer.ggml.unknown_token_id", T_UINT32, 0),
        kv("tokenizer.ggml.bos_token_id", T_UINT32, 1),
        kv("tokenizer.ggml.eos_token_id", T_UINT32, 2),
        kv("tokenizer.ggml.add_bos_token", T_BOOL, True),
        kv("tokenizer.ggml.add_eos_token", T_BOOL, False),
    ]
    infos, offset = [], 0
    for name, dims in tensors:
        size = 4
        for d in dims:
            size *= d
        infos.append(gstr(name) + struct.pack("<I", len(dims))
                     + struct.pack(f"<{len(dims)}Q", *dims) + struct.pack("<IQ", GGML_F32, offset))
        offset += size + pad(size)
    header = (b"GGUF" + struct.pack("<IQQ", 3, len(tensors), len(meta))
              + b"".join(meta) + b"".join(infos))
    silent = [i for i, (_, k) in enumerate(toks) if k != TOK_NORMAL]
    with open(path, "wb") as f:
        f.write(header + bytes(pad(len(header))))
        for name, dims in tensors:
            size = 0
            for piece in tensor_data(name, dims, seed, silent):
                f.write(piece)
                size += len(piece)
            f.write(bytes(pad(size)))
    return n_vocab, n_ff, offset


def main():
    ap = argparse.ArgumentParser(description="Write a random-weight llama GGUF model.")
    ap.add_argument("out", help="output .gguf file")
    ap.add_argument("--mib", type=int, default=32, help="approximate weight size in MiB (>= 4)")
    ap.add_argument("--seed", default="numaplan", help="seed of the random weights")
    a = ap.parse_args()
    if a.mib < 4:
        ap.error("--mib must be at least 4")
    n_vocab, n_ff, size = write(a.out, a.mib, a.seed)
    print(f"make-gguf: {a.out}: llama n_vocab={n_vocab} n_embd={N_EMBD} n_layer={N_LAYER} "
          f"n_ff={n_ff} n_ctx={N_CTX} weights={size / 2**20:.1f} MiB f32", file=sys.stderr)


if __name__ == "__main__":
    main()
