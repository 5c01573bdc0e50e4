#ifndef RF_HTTP_SHIM_H
#define RF_HTTP_SHIM_H

#include <microhttpd.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* libmicrohttpd's start function and connection info are C variadic functions, which Swift cannot
 * call; its sentinel constants are macros with casts, which Swift does not import. This shim gives
 * fixed-argument wrappers and plain constants. Thread safety: as libmicrohttpd's own functions. */

/* MHD_CONTENT_READER_END_OF_STREAM and MHD_SIZE_UNKNOWN as plain values. */
extern const ssize_t rf_http_end_of_stream;
extern const uint64_t rf_http_size_unknown;
/* The enum values Swift needs (libmicrohttpd's enums import under compiler-dependent names). */
extern const enum MHD_Result rf_http_yes;
extern const enum MHD_Result rf_http_no;
extern const enum MHD_ValueKind rf_http_header_kind;
extern const enum MHD_ValueKind rf_http_query_kind;
extern const enum MHD_ValueKind rf_http_cookie_kind;
extern const enum MHD_ResponseMemoryMode rf_http_copy_memory;

/* Starts a daemon on the numeric address `host` (IPv4 or IPv6) and `port` (0: any free port): one
 * thread per connection, `handler` for every request, `completed` when a request ends (to free its
 * state). Requests' headers are bounded by `header_bytes`. Returns NULL and a message in `error` on
 * failure; on success `bound_port` is the port listened on. */
struct MHD_Daemon *rf_http_start(const char *host, uint16_t port, MHD_AccessHandlerCallback handler, void *cls,
                                 MHD_RequestCompletedCallback completed, size_t header_bytes,
                                 unsigned int connection_limit, unsigned int timeout_seconds, uint16_t *bound_port,
                                 char *error, size_t error_size);

/* Whether the peer of `connection` is a loopback address (127.0.0.0/8, ::1 or ::ffff:127.x). */
int rf_http_peer_is_loopback(struct MHD_Connection *connection);

/* Whether `host` is a numeric loopback address. */
int rf_http_is_loopback(const char *host);

#endif
