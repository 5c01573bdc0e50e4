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

/* Limits a server holds every connection to. */
struct rf_http_limits {
    size_t header_bytes;            /* memory for a request's headers */
    unsigned int connection_limit;  /* connections at once */
    unsigned int per_address_limit; /* connections at once from one client address (all loopback addresses
                                       one) without the trusted cookie; a newer one shuts the oldest down */
    unsigned int idle_seconds;      /* an idle connection is closed after this */
    unsigned int header_seconds;    /* a request's headers must be in within this, from their start */
    unsigned int body_seconds;      /* its body within this, from the end of the headers */
};

/* A running server: the daemon and the thread enforcing the header and body deadlines (counted from
 * their start; bytes arriving do not extend them). */
struct rf_server;

/* Starts a daemon on the numeric address `host` (IPv4 or IPv6) and `port` (0: any free port): one
 * thread per connection, `handler` for every request, `completed` when a request ends (to free its
 * state), held to `limits`. Returns NULL and a message in `error` on failure; on success `bound_port`
 * is the port listened on. Stop it with rf_http_stop. */
struct rf_server *rf_http_start(const char *host, uint16_t port, MHD_AccessHandlerCallback handler, void *cls,
                                MHD_RequestCompletedCallback completed, struct rf_http_limits limits,
                                uint16_t *bound_port, char *error, size_t error_size);

/* libmicrohttpd's calls on a started server's connections and responses, by the same arguments. The
 * library is loaded when the first server starts (rf_http_start says what is missing when it cannot be),
 * not linked: Swift calls these instead of the MHD_ functions. */
const char *rf_http_lookup_value(struct MHD_Connection *connection, enum MHD_ValueKind kind, const char *key);
int rf_http_connection_values(struct MHD_Connection *connection, enum MHD_ValueKind kind,
                              MHD_KeyValueIterator iterator, void *cls);
struct MHD_Response *rf_http_response_from_buffer(size_t size, void *buffer, enum MHD_ResponseMemoryMode mode);
struct MHD_Response *rf_http_response_from_callback(uint64_t size, size_t block_size, MHD_ContentReaderCallback reader,
                                                    void *cls, MHD_ContentReaderFreeCallback free_cls);
enum MHD_Result rf_http_add_header(struct MHD_Response *response, const char *name, const char *value);
enum MHD_Result rf_http_queue_response(struct MHD_Connection *connection, unsigned int status,
                                       struct MHD_Response *response);
void rf_http_destroy_response(struct MHD_Response *response);

/* Stops the daemon (waiting for its connections' threads) and frees `server`. Call once. */
void rf_http_stop(struct rf_server *server);

/* From now on, a connection whose request carries cookie `name` with exactly `value` is trusted: not
 * counted against its address's slots, and never shut down to make room. 0, or -1 when out of memory. */
int rf_http_trust_cookie(struct rf_server *server, const char *name, const char *value);

/* Whether the peer of `connection` is a loopback address (127.0.0.0/8, ::1 or ::ffff:127.x). */
int rf_http_peer_is_loopback(struct MHD_Connection *connection);

/* Whether `host` is a numeric loopback address. */
int rf_http_is_loopback(const char *host);

#endif
