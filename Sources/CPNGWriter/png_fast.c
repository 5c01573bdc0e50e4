/*
 * The fast encode path (compression level 1 without libpng's filters, the default): one pass from
 * cairo's premultiplied ARGB32 to filtered rows, then a deflate stream written here, tuned for the
 * frames motion graphics make (flat areas, transparent margins, anti-aliased edges):
 *
 * - each row is unpremultiplied (the shared table) and filtered with Sub, Up or Paeth, whichever leaves
 *   the smallest sum of residuals (the heuristic libpng's adaptive filter uses), in png_rows.c;
 * - the residuals are coded in one dynamic-Huffman deflate block whose codes are fitted to the frame
 *   (to every fourth row of a big one); the only matches are runs of zero residuals (distance 1), which
 *   is what flat areas become once filtered, found 64 bytes at a time; every other byte is a literal;
 * - Adler-32 and the chunks' CRC-32 come from libdeflate (vectorised where the CPU allows); the Adler-32 is
 *   summed row by row while each row is in the cache, and whether the frame is opaque (RGB) is found on the
 *   way too, so the frame's pixels are read once and its scanlines twice (filtered, then coded).
 *
 * The output depends only on the pixels: no timing, thread or CPU feature changes a byte.
 */
#include "png_internal.h"

#include <libdeflate.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

enum {
    LITLEN_SYMBOLS = 286,
    END_OF_BLOCK = 256,
    MAX_CODE_BITS = 15,
    CODE_LENGTH_SYMBOLS = 19,
    MAX_CODE_LENGTH_BITS = 7,
    MIN_RUN = 4,     /* a zero run shorter than this stays literals: a match costs about as much */
    MAX_MATCH = 258,
    SAMPLE_EVERY = 4,      /* the rows whose tokens fit the Huffman codes of a big frame */
    SAMPLE_FROM = 1 << 20, /* a big frame: at least this many bytes of rows */
};

/* ---- Match lengths ---- */

/* The length symbol (257…285) of a match of `length` (3…258), its extra bits and their value. */
typedef struct length_code {
    uint16_t symbol;
    uint8_t extra_bits;
    uint16_t extra;
} length_code;

static length_code length_codes[MAX_MATCH + 1];
static const uint16_t length_base[29] = { 3,  4,  5,  6,  7,  8,  9,  10, 11,  13,  15,  17,  19,  23, 27,
                                          31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258 };
static const uint8_t length_extra[29] = { 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                          2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0 };

static void build_length_codes(void) {
    for (int code = 0; code < 29; code++) {
        int last = code == 28 ? 258 : length_base[code] + (1 << length_extra[code]) - 1;
        if (code == 27) last = 257; /* 258 has a code of its own */
        for (int length = length_base[code]; length <= last; length++) {
            length_codes[length] = (length_code){ (uint16_t)(257 + code), length_extra[code],
                                                  (uint16_t)(length - length_base[code]) };
        }
    }
}

static pthread_once_t length_codes_once = PTHREAD_ONCE_INIT;

/* ---- Huffman codes ---- */

typedef struct symbol_count {
    uint32_t count;
    uint16_t symbol;
} symbol_count;

static int by_count(const void *a, const void *b) {
    const symbol_count *x = a, *y = b;
    if (x->count != y->count) return x->count < y->count ? -1 : 1;
    return (int)x->symbol - (int)y->symbol;
}

/* Code lengths for `n` symbols of `counts` (0: unused), none longer than `limit`: a Huffman tree, then,
 * when it is too deep, the lengths evened out until the Kraft sum fits. At least two symbols get a code. */
static void code_lengths(const uint32_t *counts, int n, int limit, uint8_t *lengths) {
    symbol_count used[LITLEN_SYMBOLS];
    int m = 0;
    for (int s = 0; s < n; s++) {
        lengths[s] = 0;
        if (counts[s]) used[m++] = (symbol_count){ counts[s], (uint16_t)s };
    }
    for (int s = 0; m < 2 && s < n; s++) {
        if (!counts[s]) used[m++] = (symbol_count){ 1, (uint16_t)s };
    }
    qsort(used, (size_t)m, sizeof(used[0]), by_count);
    /* Two-queue Huffman: leaves in order of count, internal nodes in order of creation. */
    uint64_t weight[2 * LITLEN_SYMBOLS];
    int parent[2 * LITLEN_SYMBOLS];
    for (int i = 0; i < m; i++) weight[i] = used[i].count;
    int leaf = 0, node = m, next = m;
    for (int k = 0; k < m - 1; k++) {
        int pick[2];
        for (int j = 0; j < 2; j++) {
            if (leaf < m && (node >= next || weight[leaf] <= weight[node])) {
                pick[j] = leaf++;
            } else {
                pick[j] = node++;
            }
        }
        weight[next] = weight[pick[0]] + weight[pick[1]];
        parent[pick[0]] = parent[pick[1]] = next;
        next++;
    }
    int depth[2 * LITLEN_SYMBOLS];
    depth[next - 1] = 0;
    for (int i = next - 2; i >= 0; i--) depth[i] = depth[parent[i]] + 1;
    /* How many codes of each length, the deep ones moved up to `limit` and the Kraft sum repaired. */
    int per_length[MAX_CODE_BITS + 2] = { 0 };
    for (int i = 0; i < m; i++) per_length[depth[i] > limit ? limit : depth[i]]++;
    uint32_t kraft = 0;
    for (int bits = 1; bits <= limit; bits++) kraft += (uint32_t)per_length[bits] << (limit - bits);
    while (kraft > (1u << limit)) {
        per_length[limit]--;
        for (int bits = limit - 1; bits > 0; bits--) {
            if (per_length[bits]) {
                per_length[bits]--;
                per_length[bits + 1] += 2;
                break;
            }
        }
        kraft--;
    }
    /* The rarest symbols get the longest codes. */
    int i = 0;
    for (int bits = limit; bits >= 1; bits--) {
        for (int k = 0; k < per_length[bits]; k++) lengths[used[i++].symbol] = (uint8_t)bits;
    }
}

/* Canonical codes for `lengths` (RFC 1951 §3.2.2), bit-reversed for the LSB-first stream. */
static void canonical_codes(const uint8_t *lengths, int n, uint16_t *codes) {
    int per_length[MAX_CODE_BITS + 1] = { 0 };
    for (int s = 0; s < n; s++) per_length[lengths[s]]++;
    per_length[0] = 0;
    uint16_t next[MAX_CODE_BITS + 2];
    uint16_t code = 0;
    for (int bits = 1; bits <= MAX_CODE_BITS; bits++) {
        code = (uint16_t)((code + per_length[bits - 1]) << 1);
        next[bits] = code;
    }
    for (int s = 0; s < n; s++) {
        int bits = lengths[s];
        if (!bits) continue;
        uint16_t value = next[bits]++, reversed = 0;
        for (int b = 0; b < bits; b++) reversed |= (uint16_t)(((value >> b) & 1) << (bits - 1 - b));
        codes[s] = reversed;
    }
}

/* ---- Bits ---- */

/* Bits are gathered in a 64-bit word and stored eight bytes at a time, advancing by the whole bytes
 * written: no branch per symbol. At most 56 bits are added between two `flush`es (7 may be left over):
 * three literals of at most 15 bits, or one match of at most 21. */
typedef struct bit_writer {
    uint8_t *out;
    uint64_t buffer;
    unsigned count;
} bit_writer;

static inline void add_bits(bit_writer *w, uint64_t value, unsigned bits) {
    w->buffer |= value << w->count;
    w->count += bits;
}

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the bit writer stores its word little-endian");

/* Stores the whole bytes (8 bytes are written: the output has room past its end). */
static inline void flush_bits(bit_writer *w) {
    memcpy(w->out, &w->buffer, 8);
    w->out += w->count >> 3;
    w->buffer >>= w->count & ~7u; /* at most 56: count stays below 64 */
    w->count &= 7;
}

static inline void put_bits(bit_writer *w, uint32_t value, unsigned bits) {
    add_bits(w, value, bits);
    flush_bits(w);
}

/* The last partial byte. */
static void finish_bits(bit_writer *w) {
    flush_bits(w);
    if (w->count) *w->out++ = (uint8_t)w->buffer;
    w->buffer = 0;
    w->count = 0;
}

/* ---- Tokens: literals, and runs of zeros as matches at distance 1 ---- */

/* Where tokens go: counted into a histogram, or written with the codes fitted to it. */
typedef struct sink {
    uint32_t *counts;        /* two histograms, even and odd bytes, so that equal neighbours do not wait */
    bit_writer *writer;
    const uint32_t *symbols; /* code | length << 16, per literal/length symbol */
} sink;

static inline __attribute__((always_inline)) void literal(sink *s, int writing, unsigned byte, unsigned lane) {
    if (writing) {
        uint32_t symbol = s->symbols[byte];
        add_bits(s->writer, symbol & 0xFFFF, symbol >> 16);
    } else {
        s->counts[lane * LITLEN_SYMBOLS + byte]++;
    }
}

static inline __attribute__((always_inline)) void match(sink *s, int writing, size_t length) {
    length_code code = length_codes[length];
    if (writing) {
        uint32_t symbol = s->symbols[code.symbol];
        unsigned bits = symbol >> 16;
        /* The length code, its extra bits, then distance code 0 (distance 1) as one 0 bit. */
        add_bits(s->writer, (symbol & 0xFFFF) | ((uint64_t)code.extra << bits), bits + code.extra_bits + 1);
        flush_bits(s->writer);
    } else {
        s->counts[code.symbol]++;
    }
}

/* Bit k set when data[k] is not 0, for the 64 bytes at data (SSE2, in every x86-64; else a byte loop). */
static inline uint64_t nonzero_mask(const uint8_t *data) {
#if defined(__SSE2__)
    const __m128i zero = _mm_setzero_si128();
    uint64_t zeros = 0;
    for (int k = 0; k < 4; k++) {
        __m128i v = _mm_loadu_si128((const __m128i *)(data + 16 * k));
        zeros |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, zero)) << (16 * k);
    }
    return ~zeros;
#else
    uint64_t mask = 0;
    for (int k = 0; k < 64; k++) mask |= (uint64_t)(data[k] != 0) << k;
    return mask;
#endif
}

/* `count` zero bytes: a literal 0, then the rest as matches (distance 1: copies of the zero before) when
 * there are at least MIN_RUN - 1 of them, else as literals. */
static inline __attribute__((always_inline)) void zeros(sink *s, int writing, size_t count) {
    if (count == 0) return;
    if (writing) flush_bits(s->writer); /* up to three literals of 15 bits follow */
    literal(s, writing, 0, 0);
    size_t run = count - 1;
    if (run < MIN_RUN - 1) {
        for (size_t k = 0; k < run; k++) literal(s, writing, 0, 1);
        if (writing) flush_bits(s->writer);
        return;
    }
    if (writing) flush_bits(s->writer);
    while (run > 0) {
        size_t piece = run > MAX_MATCH ? (run - MAX_MATCH >= 3 ? MAX_MATCH : run - 3) : run;
        match(s, writing, piece);
        run -= piece;
    }
}

/* Every token of data[0, length): each non-zero byte a literal, and each run of zeros between them as
 * `zeros` says. The non-zero bytes are found 64 at a time as a bit mask, so a flat area costs a few
 * instructions per 64 bytes and a busy one a few per byte. */
static inline __attribute__((always_inline)) void tokens(sink *s, int writing, const uint8_t *data, size_t length) {
    size_t next = 0; /* the first byte not yet in a token */
    for (size_t base = 0; base < length; base += 64) {
        uint64_t mask;
        if (base + 64 <= length) {
            __builtin_prefetch(data + base + 2048); /* the scanlines left the cache as they were filtered */
            mask = nonzero_mask(data + base);
        } else {
            mask = 0;
            for (size_t k = 0; base + k < length; k++) mask |= (uint64_t)(data[base + k] != 0) << k;
        }
        unsigned lane = 0, pending = 0;
        while (mask) {
            size_t at = base + (size_t)__builtin_ctzll(mask);
            mask &= mask - 1;
            if (at != next) {
                zeros(s, writing, at - next);
                pending = 0;
            }
            literal(s, writing, data[at], lane ^= 1);
            if (writing && ++pending == 3) {
                flush_bits(s->writer);
                pending = 0;
            }
            next = at + 1;
        }
        if (writing) flush_bits(s->writer);
    }
    zeros(s, writing, length - next);
}

/* Adds the tokens of data[0, length) to the two histograms `lanes` (even and odd literals). */
static void count_tokens(const uint8_t *data, size_t length, uint32_t lanes[2 * LITLEN_SYMBOLS]) {
    sink s = { lanes, NULL, NULL };
    tokens(&s, 0, data, length);
}

static void write_tokens(const uint8_t *data, size_t length, bit_writer *writer, const uint32_t *symbols) {
    sink s = { NULL, writer, symbols };
    tokens(&s, 1, data, length);
}

/* ---- The block header: the code lengths, themselves run-length and Huffman coded ---- */

typedef struct header {
    uint8_t items[LITLEN_SYMBOLS + 30]; /* code-length symbols (0…18) */
    uint8_t extras[LITLEN_SYMBOLS + 30];
    int count;
    uint32_t counts[CODE_LENGTH_SYMBOLS];
    uint8_t lengths[CODE_LENGTH_SYMBOLS];
    uint16_t codes[CODE_LENGTH_SYMBOLS];
    int hlit, hdist, hclen;
} header;

static const uint8_t code_length_order[CODE_LENGTH_SYMBOLS] = { 16, 17, 18, 0, 8,  7, 9,  6, 10, 5,
                                                                 11, 4,  12, 3, 13, 2, 14, 1, 15 };
static const uint8_t code_length_extra[CODE_LENGTH_SYMBOLS] = { [16] = 2, [17] = 3, [18] = 7 };

static void add_item(header *h, int symbol, int extra) {
    h->items[h->count] = (uint8_t)symbol;
    h->extras[h->count++] = (uint8_t)extra;
    h->counts[symbol]++;
}

/* Run-length codes the literal/length and distance code lengths and fits the code-length code. */
static void plan_header(header *h, const uint8_t *litlen, const uint8_t *dist) {
    memset(h, 0, sizeof(*h));
    h->hlit = LITLEN_SYMBOLS;
    while (h->hlit > 257 && litlen[h->hlit - 1] == 0) h->hlit--;
    h->hdist = 1;
    uint8_t all[LITLEN_SYMBOLS + 30];
    memcpy(all, litlen, (size_t)h->hlit);
    memcpy(all + h->hlit, dist, (size_t)h->hdist);
    int total = h->hlit + h->hdist;
    for (int i = 0; i < total;) {
        int value = all[i], run = 1;
        while (i + run < total && all[i + run] == value) run++;
        int left = run;
        if (value == 0) {
            while (left >= 11) {
                int piece = left > 138 ? 138 : left;
                add_item(h, 18, piece - 11);
                left -= piece;
            }
            if (left >= 3) {
                add_item(h, 17, left - 3);
                left = 0;
            }
        } else {
            add_item(h, value, 0);
            left--;
            while (left >= 3) {
                int piece = left > 6 ? 6 : left;
                add_item(h, 16, piece - 3);
                left -= piece;
            }
        }
        while (left-- > 0) add_item(h, value, 0);
        i += run;
    }
    code_lengths(h->counts, CODE_LENGTH_SYMBOLS, MAX_CODE_LENGTH_BITS, h->lengths);
    canonical_codes(h->lengths, CODE_LENGTH_SYMBOLS, h->codes);
    h->hclen = CODE_LENGTH_SYMBOLS;
    while (h->hclen > 4 && h->lengths[code_length_order[h->hclen - 1]] == 0) h->hclen--;
}

static size_t header_bits(const header *h) {
    size_t bits = 3 + 5 + 5 + 4 + 3 * (size_t)h->hclen;
    for (int i = 0; i < h->count; i++) bits += h->lengths[h->items[i]] + code_length_extra[h->items[i]];
    return bits;
}

static void write_header(bit_writer *w, const header *h) {
    put_bits(w, 1, 1); /* the final block */
    put_bits(w, 2, 2); /* dynamic Huffman codes */
    put_bits(w, (uint32_t)(h->hlit - 257), 5);
    put_bits(w, (uint32_t)(h->hdist - 1), 5);
    put_bits(w, (uint32_t)(h->hclen - 4), 4);
    for (int i = 0; i < h->hclen; i++) put_bits(w, h->lengths[code_length_order[i]], 3);
    for (int i = 0; i < h->count; i++) {
        int symbol = h->items[i];
        put_bits(w, h->codes[symbol], h->lengths[symbol]);
        if (code_length_extra[symbol]) put_bits(w, h->extras[i], code_length_extra[symbol]);
    }
}

/* Converts, filters and samples every row into enc->scanlines (rows[] is room for two converted rows), as RGB
 * when `opaque`; adds the sampled rows' tokens to lanes and sets *adler to the Adler-32 of the scanlines, each
 * summed while it is in the cache. Returns 0, or -1 without finishing when `opaque` but a row is not. */
static int filter_rows(rf_png_encoder *enc, const uint8_t *pixels, uint32_t width, uint32_t height, size_t stride,
                       int opaque, uint8_t *rows[2], uint32_t sample_every, uint32_t lanes[2 * LITLEN_SYMBOLS],
                       uint32_t *adler) {
    size_t bpp = opaque ? 3 : 4, row_bytes = (size_t)width * bpp;
    *adler = 1;
    for (uint32_t y = 0; y < height; y++) {
        const uint8_t *source = pixels + (size_t)y * stride;
        uint8_t *cur = rows[y & 1], *prev = y ? rows[(y + 1) & 1] : NULL;
        uint8_t *scanline = enc->scanlines + (size_t)y * (row_bytes + 1);
        if (!rf_fast_convert_row((const uint32_t *)source, cur, width, opaque)) return -1;
        rf_fast_filter_row(cur, prev, row_bytes, bpp, scanline);
        if (y % sample_every == 0) count_tokens(scanline, row_bytes + 1, lanes);
        *adler = libdeflate_adler32(*adler, scanline, row_bytes + 1);
    }
    return 0;
}

int rf_png_encode_fast(rf_png_encoder *enc, const uint8_t *pixels, uint32_t width, uint32_t height,
                       size_t stride, rf_png_timing *timing, char *err, size_t errlen) {
    pthread_once(&length_codes_once, build_length_codes);
    /* Opaque frames are written as RGB. Whether one is comes out of the rows as they are converted: "opaque"
     * holds until a row that is not (tested while it is converted), and then every row is done again as RGBA. */
    int opaque = 1;
    size_t raw_length = ((size_t)width * 4 + 1) * height;
    /* The scanlines, then two converted rows (with slack for vector stores past their end). */
    size_t row_room = (size_t)width * 4 + 32, scratch = 2 * row_room;
    if (rf_png_grow(&enc->scanlines, &enc->scanlines_capacity, raw_length + scratch) != 0) {
        if (err && errlen) snprintf(err, errlen, "out of memory for %zu bytes of PNG rows", raw_length + scratch);
        return -1;
    }
    uint64_t start = rf_now_ns();
    /* The Huffman codes are fitted to the tokens of a sample of the rows (every SAMPLE_EVERY-th of a frame of
     * SAMPLE_FROM bytes or more; all of a smaller one), counted while the row is in the cache: a row's tokens do
     * not depend on its neighbours', as no zero run crosses a row (each starts with its filter type, which is
     * not 0). When rows were left out, every symbol counts once more, so that a token no sampled row has still
     * has a code. */
    uint32_t lanes[2 * LITLEN_SYMBOLS];
    uint32_t adler = 1, sample_every = 1;
    for (;;) {
        size_t row_bytes = (size_t)width * (opaque ? 3 : 4);
        raw_length = (row_bytes + 1) * height;
        uint8_t *rows[2] = { enc->scanlines + raw_length, enc->scanlines + raw_length + row_room };
        memset(lanes, 0, sizeof(lanes));
        sample_every = raw_length >= SAMPLE_FROM ? SAMPLE_EVERY : 1;
        if (filter_rows(enc, pixels, width, height, stride, opaque, rows, sample_every, lanes, &adler) == 0) break;
        opaque = 0;
    }
    enc->opaque = opaque;
    uint64_t converted = rf_now_ns();

    const uint8_t *data = enc->scanlines;
    uint32_t counts[LITLEN_SYMBOLS];
    for (int i = 0; i < LITLEN_SYMBOLS; i++) counts[i] = lanes[i] + lanes[LITLEN_SYMBOLS + i] + (sample_every > 1);
    counts[END_OF_BLOCK] = 1;
    uint8_t lengths[LITLEN_SYMBOLS];
    uint16_t codes[LITLEN_SYMBOLS] = { 0 };
    code_lengths(counts, LITLEN_SYMBOLS, MAX_CODE_BITS, lengths);
    canonical_codes(lengths, LITLEN_SYMBOLS, codes);
    /* One distance code: 1, coded with one bit (RFC 1951 §3.2.7). */
    const uint8_t distance_lengths[1] = { 1 };
    header head;
    plan_header(&head, lengths, distance_lengths);

    /* At most a 15-bit code per byte (a match codes three or more bytes in at most 21 bits). */
    size_t bits = header_bits(&head) + (raw_length + 1) * MAX_CODE_BITS;
    size_t stream_bytes = 2 + (bits + 7) / 8 + 4;
    size_t idat = RF_PNG_HEAD_BYTES;
    /* Room for the bit writer's last whole word too. */
    if (stream_bytes > 0x7FFFFFFFu || rf_png_reserve(enc, idat + 12 + stream_bytes + 12 + 8) != 0) {
        if (err && errlen) snprintf(err, errlen, "out of memory for a %zu-byte PNG", idat + stream_bytes + 24);
        return -1;
    }
    uint8_t *out = enc->data;
    size_t length = rf_png_write_head(out, width, height, opaque);
    uint8_t *stream = out + length + 8;
    stream[0] = 0x78; /* deflate, 32 KiB window */
    stream[1] = 0x01; /* fastest, no dictionary: (0x78 << 8 | 0x01) % 31 == 0 */
    bit_writer writer = { stream + 2, 0, 0 };
    write_header(&writer, &head);
    uint32_t symbols[LITLEN_SYMBOLS];
    for (int i = 0; i < LITLEN_SYMBOLS; i++) symbols[i] = codes[i] | (uint32_t)lengths[i] << 16;
    write_tokens(data, raw_length, &writer, symbols);
    put_bits(&writer, codes[END_OF_BLOCK], lengths[END_OF_BLOCK]);
    finish_bits(&writer);
    rf_png_put_u32(writer.out, adler);
    size_t compressed = (size_t)(writer.out + 4 - stream);
    length += rf_png_finish_chunk(out + length, "IDAT", (uint32_t)compressed);
    length += rf_png_finish_chunk(out + length, "IEND", 0);
    enc->length = length;
    enc->compressor = RF_PNG_COMPRESSOR_RENDERFARM;
    if (timing) {
        timing->convert_ns = converted - start;
        timing->encode_ns = rf_now_ns() - converted;
    }
    return 0;
}
