#include "http_library.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

/* libmicrohttpd, opened on the first server start: linking it would load it, GnuTLS and GnuTLS's own
 * dependencies (nine libraries in all, whose constructors parse ASN.1 tables) into every renderfarm command,
 * about 2 ms of every start, when only `renderfarm studio` serves HTTP. */

#define RF_MHD_LIBRARY "libmicrohttpd.so.12"

struct rf_mhd_functions rf_mhd;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char failure[512];

static void *find(void *library, const char *name) {
    void *symbol = dlsym(library, name);
    if (symbol == NULL && failure[0] == '\0')
        snprintf(failure, sizeof failure, "%s has no %s (libmicrohttpd 0.9.71 or later is needed)", RF_MHD_LIBRARY,
                 name);
    return symbol;
}

static void load(void) {
    void *library = dlopen(RF_MHD_LIBRARY, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (library == NULL) {
        const char *reason = dlerror();
        snprintf(failure, sizeof failure,
                 "the studio needs libmicrohttpd (Debian package libmicrohttpd12: apt-get install libmicrohttpd12): %s",
                 reason != NULL ? reason : "cannot be loaded");
        return;
    }
    rf_mhd.start_daemon = find(library, "MHD_start_daemon");
    rf_mhd.stop_daemon = find(library, "MHD_stop_daemon");
    rf_mhd.get_daemon_info = find(library, "MHD_get_daemon_info");
    rf_mhd.get_connection_info = find(library, "MHD_get_connection_info");
    rf_mhd.get_connection_values = find(library, "MHD_get_connection_values");
    rf_mhd.lookup_connection_value = find(library, "MHD_lookup_connection_value");
    rf_mhd.create_response_from_buffer = find(library, "MHD_create_response_from_buffer");
    rf_mhd.create_response_from_callback = find(library, "MHD_create_response_from_callback");
    rf_mhd.add_response_header = find(library, "MHD_add_response_header");
    rf_mhd.queue_response = find(library, "MHD_queue_response");
    rf_mhd.destroy_response = find(library, "MHD_destroy_response");
}

int rf_mhd_load(char *error, size_t error_size) {
    pthread_once(&once, load);
    if (failure[0] == '\0') return 0;
    snprintf(error, error_size, "%s", failure);
    return -1;
}

/* The calls MicroHTTP makes from Swift, each on an object of a started server (so the library is loaded). */

const char *rf_http_lookup_value(struct MHD_Connection *connection, enum MHD_ValueKind kind, const char *key) {
    return rf_mhd.lookup_connection_value(connection, kind, key);
}

int rf_http_connection_values(struct MHD_Connection *connection, enum MHD_ValueKind kind,
                              MHD_KeyValueIterator iterator, void *cls) {
    return rf_mhd.get_connection_values(connection, kind, iterator, cls);
}

struct MHD_Response *rf_http_response_from_buffer(size_t size, void *buffer, enum MHD_ResponseMemoryMode mode) {
    return rf_mhd.create_response_from_buffer(size, buffer, mode);
}

struct MHD_Response *rf_http_response_from_callback(uint64_t size, size_t block_size, MHD_ContentReaderCallback reader,
                                                    void *cls, MHD_ContentReaderFreeCallback free_cls) {
    return rf_mhd.create_response_from_callback(size, block_size, reader, cls, free_cls);
}

enum MHD_Result rf_http_add_header(struct MHD_Response *response, const char *name, const char *value) {
    return rf_mhd.add_response_header(response, name, value);
}

enum MHD_Result rf_http_queue_response(struct MHD_Connection *connection, unsigned int status,
                                       struct MHD_Response *response) {
    return rf_mhd.queue_response(connection, status, response);
}

void rf_http_destroy_response(struct MHD_Response *response) { rf_mhd.destroy_response(response); }
