#ifndef RF_HTTP_LIBRARY_H
#define RF_HTTP_LIBRARY_H

#include "include/http_shim.h"

/* libmicrohttpd's functions, found with dlsym when rf_mhd_load first succeeds (http_library.c). */
struct rf_mhd_functions {
    __typeof__(MHD_start_daemon) *start_daemon;
    __typeof__(MHD_stop_daemon) *stop_daemon;
    __typeof__(MHD_get_daemon_info) *get_daemon_info;
    __typeof__(MHD_get_connection_info) *get_connection_info;
    __typeof__(MHD_get_connection_values) *get_connection_values;
    __typeof__(MHD_lookup_connection_value) *lookup_connection_value;
    __typeof__(MHD_create_response_from_buffer) *create_response_from_buffer;
    __typeof__(MHD_create_response_from_callback) *create_response_from_callback;
    __typeof__(MHD_add_response_header) *add_response_header;
    __typeof__(MHD_queue_response) *queue_response;
    __typeof__(MHD_destroy_response) *destroy_response;
};

extern struct rf_mhd_functions rf_mhd;

/* Loads libmicrohttpd once (every later call returns the first outcome): 0 when all its functions were
 * found, else -1 with what is missing and how to install it in `error`. Thread-safe. */
int rf_mhd_load(char *error, size_t error_size);

#endif
