// FFmpeg's libavformat, libavcodec and libswscale (Debian's libavformat-dev, libavcodec-dev, libswscale-dev).
// Swift cannot import function-like macros (AVERROR, AV_NOPTS_VALUE) nor pass C callbacks with a context
// pointer easily, so the shim re-exports the constants, reads the footage through a descriptor the plugin
// opened itself (custom I/O: the demuxer never opens a path or a URL) and premultiplies converted frames.
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/avutil.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>

static const int RF_AVERROR_EAGAIN = AVERROR(EAGAIN);
static const int RF_AVERROR_EOF = AVERROR_EOF;
static const int64_t RF_AV_NOPTS_VALUE = AV_NOPTS_VALUE;

/// The demuxers the video effect accepts: MP4/MOV and Matroska/WebM. Nested playlists, concat lists and
/// image sequences are never probed.
static const char *const RF_AV_FORMATS = "mov,mp4,m4a,3gp,3g2,mj2,matroska,webm,gif,apng";

/// What the custom I/O reads: a descriptor and a position of its own. Reads are `pread`s, so readers
/// of one open file (`dup`s of it) never move each other's offset, and no path is opened again (a
/// sandboxed worker may not open /proc/self/fd/N).
typedef struct rf_av_source {
    int fd;
    int64_t position;
} rf_av_source;

static inline int rf_av_read(void *opaque, uint8_t *buffer, int size) {
    rf_av_source *source = opaque;
    for (;;) {
        ssize_t count = pread(source->fd, buffer, (size_t)size, (off_t)source->position);
        if (count > 0) {
            source->position += count;
            return (int)count;
        }
        if (count == 0) return AVERROR_EOF;
        if (errno != EINTR) return AVERROR(errno);
    }
}

static inline int64_t rf_av_seek(void *opaque, int64_t offset, int whence) {
    rf_av_source *source = opaque;
    struct stat status;
    int64_t base;
    if (whence & AVSEEK_SIZE) return fstat(source->fd, &status) == 0 ? (int64_t)status.st_size : AVERROR(errno);
    switch (whence & ~AVSEEK_FORCE) {
    case SEEK_SET: base = 0; break;
    case SEEK_CUR: base = source->position; break;
    case SEEK_END:
        if (fstat(source->fd, &status) != 0) return AVERROR(errno);
        base = (int64_t)status.st_size;
        break;
    default: return AVERROR(EINVAL);
    }
    if ((offset > 0 && base > INT64_MAX - offset) || base + offset < 0) return AVERROR(EINVAL);
    source->position = base + offset;
    return source->position;
}

/// The errors a demuxer reported while it read on: the Matroska demuxer that meets damage logs it and skips
/// to the next cluster, returning the packets after it as if none were missing. `count` and the first
/// message (without its newline) are written by `rf_av_log` on the thread that reads the container.
typedef struct rf_av_errors {
    int count;
    char first[256];
} rf_av_errors;

/// FFmpeg's log, which prints nothing (each refusal is the plugin's own, located message): an error a
/// demuxer logs is counted in the `rf_av_errors` its context's `opaque` points to (`rf_av_open`). Only a
/// context that reads through `rf_av_read` is ours: another library's in the process keeps its `opaque`.
static inline void rf_av_log(void *object, int level, const char *format, va_list arguments) {
    if (level > AV_LOG_ERROR || !object || *(const AVClass **)object != avformat_get_class()) return;
    AVFormatContext *context = object;
    if (!context->pb || context->pb->read_packet != rf_av_read) return;
    rf_av_errors *errors = context->opaque;
    if (!errors || errors->count++ > 0) return;
    vsnprintf(errors->first, sizeof errors->first, format, arguments);
    size_t length = strlen(errors->first);
    while (length > 0 && (errors->first[length - 1] == '\n' || errors->first[length - 1] == '.')) {
        errors->first[--length] = 0;
    }
}

/// Routes FFmpeg's log to `rf_av_log`, for the whole process: call once.
static inline void rf_av_log_errors_only(void) { av_log_set_callback(rf_av_log); }

/// Opens the container read from `fd` (which the caller keeps open until `rf_av_close`), with probing
/// bounded to `probe_bytes`, its demuxer's errors counted in `errors` (which the caller keeps until
/// `rf_av_close`); 0 or an AVERROR code.
static inline int rf_av_open(int fd, int64_t probe_bytes, rf_av_errors *errors, AVFormatContext **out) {
    *out = NULL;
    const int buffer_size = 1 << 16;
    unsigned char *buffer = av_malloc(buffer_size);
    if (!buffer) return AVERROR(ENOMEM);
    rf_av_source *source = av_mallocz(sizeof(rf_av_source));
    if (!source) {
        av_free(buffer);
        return AVERROR(ENOMEM);
    }
    source->fd = fd;
    AVIOContext *io = avio_alloc_context(buffer, buffer_size, 0, source, rf_av_read, NULL, rf_av_seek);
    if (!io) {
        av_free(buffer);
        av_free(source);
        return AVERROR(ENOMEM);
    }
    AVFormatContext *context = avformat_alloc_context();
    if (!context) {
        av_free(io->opaque);
        av_free(io->buffer);
        avio_context_free(&io);
        return AVERROR(ENOMEM);
    }
    context->pb = io;
    context->flags |= AVFMT_FLAG_CUSTOM_IO;
    context->probesize = probe_bytes;
    context->max_analyze_duration = 10 * AV_TIME_BASE;
    context->format_whitelist = av_strdup(RF_AV_FORMATS);
    context->protocol_whitelist = av_strdup("none");
    context->io_open = NULL;
    context->opaque = errors;
    int status = avformat_open_input(&context, NULL, NULL, NULL);
    if (status < 0) {
        // avformat_open_input freed the context on failure, not the custom I/O.
        av_free(io->opaque);
        av_free(io->buffer);
        avio_context_free(&io);
        return status;
    }
    status = avformat_find_stream_info(context, NULL);
    if (status < 0) {
        avformat_close_input(&context);
        av_free(io->opaque);
        av_free(io->buffer);
        avio_context_free(&io);
        return status;
    }
    *out = context;
    return 0;
}

/// Closes a container opened by `rf_av_open` and frees its I/O (not the descriptor).
static inline void rf_av_close(AVFormatContext **context) {
    if (!*context) return;
    AVIOContext *io = (*context)->pb;
    avformat_close_input(context);
    if (io) {
        av_free(io->opaque);
        av_free(io->buffer);
        avio_context_free(&io);
    }
}

/// The version of the libvpx libavcodec loaded (it decodes VP9 with alpha), e.g. "v1.12.0"; NULL when
/// libavcodec has none. libvpx is not linked by the plugin, so it is found in the dynamic linker's list of
/// loaded objects and asked by `vpx_codec_version_str`, without loading anything.
static inline const char *rf_av_libvpx_version(void) {
    for (const struct link_map *object = _r_debug.r_map; object; object = object->l_next) {
        if (!object->l_name || !strstr(object->l_name, "/libvpx.so")) continue;
        void *library = dlopen(object->l_name, RTLD_LAZY | RTLD_NOLOAD);
        if (!library) return NULL;
        const char *(*version)(void) = (const char *(*)(void))dlsym(library, "vpx_codec_version_str");
        const char *text = version ? version() : NULL;
        // libavcodec keeps libvpx loaded, so the static string outlives this reference.
        dlclose(library);
        return text;
    }
    return NULL;
}

/// Whether frames of `format` carry an alpha channel.
static inline int rf_av_has_alpha(enum AVPixelFormat format) {
    const AVPixFmtDescriptor *descriptor = av_pix_fmt_desc_get(format);
    return descriptor && (descriptor->flags & AV_PIX_FMT_FLAG_ALPHA) ? 1 : 0;
}

/// The error text of an AVERROR code.
static inline void rf_av_error_text(int code, char *text, size_t size) {
    if (av_strerror(code, text, size) < 0) snprintf(text, size, "error %d", code);
}

/// Premultiplies straight BGRA rows (swscale's output) in place into cairo's ARGB32, rounding to nearest.
static inline void rf_av_premultiply(uint8_t *pixels, int width, int height, int stride) {
    for (int y = 0; y < height; y++) {
        uint8_t *row = pixels + (size_t)y * (size_t)stride;
        for (int x = 0; x < width; x++) {
            uint8_t *p = row + 4 * x;
            unsigned a = p[3];
            if (a == 255) continue;
            p[0] = (uint8_t)((p[0] * a + 127) / 255);
            p[1] = (uint8_t)((p[1] * a + 127) / 255);
            p[2] = (uint8_t)((p[2] * a + 127) / 255);
        }
    }
}

/// A scaler from `frame`'s size and format to BGRA of the same size (cairo's ARGB32 byte order on little-endian
/// machines, straight alpha), reusing `cached` when it fits. Bit-exact (no CPU-dependent SIMD rounding), so a
/// frame converts to the same bytes on every machine; the YUV matrix and range come from the frame (BT.601
/// when unstated, as ffmpeg assumes).
static inline struct SwsContext *rf_av_bgra_scaler(struct SwsContext *cached, const AVFrame *frame) {
    struct SwsContext *scaler = sws_getCachedContext(
        cached, frame->width, frame->height, (enum AVPixelFormat)frame->format, frame->width, frame->height,
        AV_PIX_FMT_BGRA, SWS_BILINEAR | SWS_BITEXACT | SWS_ACCURATE_RND | SWS_FULL_CHR_H_INT, NULL, NULL, NULL);
    if (!scaler) return NULL;
    int space = SWS_CS_ITU601;
    switch (frame->colorspace) {
    case AVCOL_SPC_BT709: space = SWS_CS_ITU709; break;
    case AVCOL_SPC_FCC: space = SWS_CS_FCC; break;
    case AVCOL_SPC_SMPTE240M: space = SWS_CS_SMPTE240M; break;
    case AVCOL_SPC_BT2020_NCL:
    case AVCOL_SPC_BT2020_CL: space = SWS_CS_BT2020; break;
    default: break;
    }
    int *inverse, *table, source_range, destination_range, brightness, contrast, saturation;
    if (sws_getColorspaceDetails(scaler, &inverse, &source_range, &table, &destination_range, &brightness, &contrast,
                                 &saturation) >= 0) {
        int full = frame->color_range == AVCOL_RANGE_JPEG || source_range;
        const int *coefficients = sws_getCoefficients(space);
        sws_setColorspaceDetails(scaler, coefficients, full, coefficients, 1, brightness, contrast, saturation);
    }
    return scaler;
}

/// Converts `frame` with `scaler` into `pixels` (rows of `stride` bytes); the rows written, or a negative code.
static inline int rf_av_convert(struct SwsContext *scaler, const AVFrame *frame, uint8_t *pixels, int stride) {
    uint8_t *planes[4] = {pixels, NULL, NULL, NULL};
    int strides[4] = {stride, 0, 0, 0};
    return sws_scale(scaler, (const uint8_t *const *)frame->data, frame->linesize, 0, frame->height, planes, strides);
}

/// The frame's presentation time: its pts, or the decoder's best guess when the packet had none.
static inline int64_t rf_av_frame_time(const AVFrame *frame) {
    return frame->pts != AV_NOPTS_VALUE ? frame->pts : frame->best_effort_timestamp;
}

/// Converts an 8-bit 4:2:0 frame (yuv420p, yuvj420p) into opaque BGRA rows (cairo's ARGB32), each 2 × 2 block
/// sharing its chroma sample, in integer arithmetic (the same bytes on every machine, several times faster
/// than swscale's bit-exact path). `matrix` holds 16.16 fixed-point factors: luma scale, Cr→R, Cb→G, Cr→G,
/// Cb→B; `luma_offset` is 16 for limited range, 0 for full. Each channel is
///     clamp(((Y − luma_offset) × scale + 2^15 + chroma term) >> 16)
/// with the chroma terms Cr' × red, −Cb' × green_u − Cr' × green_v and Cb' × blue (Cb', Cr' = sample − 128).
/// Every sum is of exact integer products (256-entry tables, and the luma term also in 16-bit SIMD halves), so
/// it is the same integer whichever path adds it: SSE2 (every x86-64) for 8 pixels at a time, plain C for the
/// rest of a row and on other machines.
typedef struct rf_av_yuv_tables {
    int32_t luma[256];
    int32_t red[256];
    int32_t green_u[256];
    int32_t green_v[256];
    int32_t blue[256];
} rf_av_yuv_tables;

static inline void rf_av_yuv_tables_fill(rf_av_yuv_tables *tables, const int32_t matrix[5], int32_t luma_offset) {
    for (int32_t i = 0; i < 256; i++) {
        tables->luma[i] = (i - luma_offset) * matrix[0] + (1 << 15);
        tables->red[i] = (i - 128) * matrix[1];
        tables->green_u[i] = -(i - 128) * matrix[2];
        tables->green_v[i] = -(i - 128) * matrix[3];
        tables->blue[i] = (i - 128) * matrix[4];
    }
}

static inline uint8_t rf_av_clamp8(int32_t value) {
    return (uint8_t)(value < 0 ? 0 : value > 255 ? 255 : value);
}

/// One row of `width` pixels from its luma samples and the chroma terms per chroma sample. The SSE2 path
/// computes the luma term itself, (Y − luma_offset) × scale + 2^15, as (Y − luma_offset) × high × 2^16 +
/// (Y − luma_offset) × low with scale = high × 2^16 + low, each product exact in 16-bit lanes (low < 2^15,
/// which both ranges' scales meet; otherwise the caller passes `simd` 0). `simd` 0 keeps to plain C (the
/// tests compare both paths).
static inline void rf_av_convert_420_row(const uint8_t *restrict luma, const rf_av_yuv_tables *restrict tables,
                                         const int32_t *restrict red, const int32_t *restrict green,
                                         const int32_t *restrict blue, uint8_t *restrict row, int width,
                                         int32_t scale, int32_t luma_offset, int simd) {
    int x = 0;
#if defined(__SSE2__)
    if (simd) {
        const __m128i zero = _mm_setzero_si128(), alpha = _mm_set1_epi8((char)0xFF);
        const __m128i offset = _mm_set1_epi16((short)luma_offset), half = _mm_set1_epi32(1 << 15);
        const __m128i high = _mm_set1_epi16((short)(scale >> 16)), low = _mm_set1_epi16((short)(scale & 0xFFFF));
        for (; x + 8 <= width; x += 8) {
            const __m128i samples = _mm_unpacklo_epi8(_mm_loadl_epi64((const __m128i *)(luma + x)), zero);
            const __m128i y = _mm_sub_epi16(samples, offset);
            const __m128i product_low = _mm_mullo_epi16(y, low), product_high = _mm_mulhi_epi16(y, low);
            const __m128i shifted = _mm_mullo_epi16(y, high); // × 2^16 by unpacking below zeros
            const __m128i l0 = _mm_add_epi32(_mm_add_epi32(_mm_unpacklo_epi16(product_low, product_high),
                                                           _mm_unpacklo_epi16(zero, shifted)), half);
            const __m128i l1 = _mm_add_epi32(_mm_add_epi32(_mm_unpackhi_epi16(product_low, product_high),
                                                           _mm_unpackhi_epi16(zero, shifted)), half);
            // 4 chroma samples for 8 pixels, each doubled: c0 c0 c1 c1 | c2 c2 c3 c3.
            const __m128i r = _mm_loadu_si128((const __m128i *)(red + x / 2));
            const __m128i g = _mm_loadu_si128((const __m128i *)(green + x / 2));
            const __m128i b = _mm_loadu_si128((const __m128i *)(blue + x / 2));
            // Arithmetic shifts, then saturating packs: int32 → int16 → 0…255 is exactly the clamp.
            const __m128i r16 = _mm_packs_epi32(_mm_srai_epi32(_mm_add_epi32(l0, _mm_unpacklo_epi32(r, r)), 16),
                                                _mm_srai_epi32(_mm_add_epi32(l1, _mm_unpackhi_epi32(r, r)), 16));
            const __m128i g16 = _mm_packs_epi32(_mm_srai_epi32(_mm_add_epi32(l0, _mm_unpacklo_epi32(g, g)), 16),
                                                _mm_srai_epi32(_mm_add_epi32(l1, _mm_unpackhi_epi32(g, g)), 16));
            const __m128i b16 = _mm_packs_epi32(_mm_srai_epi32(_mm_add_epi32(l0, _mm_unpacklo_epi32(b, b)), 16),
                                                _mm_srai_epi32(_mm_add_epi32(l1, _mm_unpackhi_epi32(b, b)), 16));
            const __m128i r8 = _mm_packus_epi16(r16, r16), g8 = _mm_packus_epi16(g16, g16);
            const __m128i b8 = _mm_packus_epi16(b16, b16);
            const __m128i blue_green = _mm_unpacklo_epi8(b8, g8), red_alpha = _mm_unpacklo_epi8(r8, alpha);
            _mm_storeu_si128((__m128i *)(row + 4 * x), _mm_unpacklo_epi16(blue_green, red_alpha));
            _mm_storeu_si128((__m128i *)(row + 4 * x + 16), _mm_unpackhi_epi16(blue_green, red_alpha));
        }
    }
#else
    (void)simd;
    (void)scale;
    (void)luma_offset;
#endif
    for (; x < width; x++) {
        const int32_t l = tables->luma[luma[x]];
        uint8_t *pixel = row + 4 * x;
        pixel[0] = rf_av_clamp8((l + blue[x >> 1]) >> 16);
        pixel[1] = rf_av_clamp8((l + green[x >> 1]) >> 16);
        pixel[2] = rf_av_clamp8((l + red[x >> 1]) >> 16);
        pixel[3] = 255;
    }
}

/// The frame into `pixels` (rows of `stride` bytes); `simd` as for `rf_av_convert_420_row`. Frames wider than
/// 8192 pixels are left alone (the decoder refuses them).
static inline void rf_av_convert_420(const AVFrame *frame, uint8_t *pixels, int stride, const int32_t matrix[5],
                                     int luma_offset, int simd) {
    enum { most = 8192 };
    const int width = frame->width, height = frame->height;
    if (width > most) return;
    rf_av_yuv_tables tables;
    rf_av_yuv_tables_fill(&tables, matrix, luma_offset);
    int32_t red[most / 2], green[most / 2], blue[most / 2];
    // The SSE2 path's 16-bit products hold: (255 − offset) × high and the low half as a signed 16-bit factor.
    simd = simd && matrix[0] >= 0 && (matrix[0] & 0xFFFF) < 0x8000 && (matrix[0] >> 16) <= 128;
    const int samples = (width + 1) / 2;
    for (int y = 0; y < height; y++) {
        if ((y & 1) == 0) {
            const uint8_t *cb = frame->data[1] + (ptrdiff_t)(y >> 1) * frame->linesize[1];
            const uint8_t *cr = frame->data[2] + (ptrdiff_t)(y >> 1) * frame->linesize[2];
            for (int i = 0; i < samples; i++) {
                red[i] = tables.red[cr[i]];
                green[i] = tables.green_u[cb[i]] + tables.green_v[cr[i]];
                blue[i] = tables.blue[cb[i]];
            }
        }
        rf_av_convert_420_row(frame->data[0] + (ptrdiff_t)y * frame->linesize[0], &tables, red, green, blue,
                              pixels + (ptrdiff_t)y * stride, width, matrix[0], luma_offset, simd);
    }
}
