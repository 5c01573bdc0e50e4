#include "http_shim.h"
#include "http_library.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

const ssize_t rf_http_end_of_stream = MHD_CONTENT_READER_END_OF_STREAM;
const uint64_t rf_http_size_unknown = MHD_SIZE_UNKNOWN;
const enum MHD_Result rf_http_yes = MHD_YES;
const enum MHD_Result rf_http_no = MHD_NO;
const enum MHD_ValueKind rf_http_header_kind = MHD_HEADER_KIND;
const enum MHD_ValueKind rf_http_query_kind = MHD_GET_ARGUMENT_KIND;
const enum MHD_ValueKind rf_http_cookie_kind = MHD_COOKIE_KIND;
const enum MHD_ResponseMemoryMode rf_http_copy_memory = MHD_RESPMEM_MUST_COPY;

static int resolve(const char *host, uint16_t port, struct sockaddr_storage *address) {
    struct addrinfo hints, *found = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV;
    hints.ai_socktype = SOCK_STREAM;
    char service[8];
    snprintf(service, sizeof service, "%u", (unsigned) port);
    if (getaddrinfo(host, service, &hints, &found) != 0 || found == NULL) return -1;
    memset(address, 0, sizeof *address);
    memcpy(address, found->ai_addr, found->ai_addrlen);
    int family = found->ai_family;
    freeaddrinfo(found);
    return family;
}

/* ---- Deadlines: a connection has `header_seconds` for a request's headers and `body_seconds` for
 * its body, counted from their start; bytes arriving do not extend them (libmicrohttpd's own
 * timeout is an idle timeout, which a client sending a byte now and then never reaches). A reaper
 * thread shuts down the socket of a connection past its deadline; libmicrohttpd then closes it.
 *
 * ---- Slots per address: at most `per_address_limit` connections of one client address (every loopback
 * address counting as one) that have not shown the trusted cookie; a new connection past that shuts
 * down the oldest of them rather than being refused. So slow or idle clients, or event streams held
 * without the cookie, can neither lock out a newcomer nor push out a connection that showed the
 * cookie (the studio page's event stream). */

struct rf_deadline {
    struct rf_deadline *next, *previous;
    MHD_socket socket;
    double deadline; /* monotonic seconds; 0: none (a response is being sent) */
    double opened;   /* monotonic seconds */
    unsigned char address[16]; /* the client's address; all loopback addresses alike */
    int trusted;     /* its last request carried the trusted cookie */
    int evicted;     /* shut down to make room: no longer counted */
};

struct rf_server {
    struct MHD_Daemon *daemon;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    pthread_t reaper;
    int stopping;
    struct rf_deadline *open;
    unsigned int header_seconds, body_seconds, per_address_limit;
    char *cookie_name, *cookie_value; /* the trusted cookie; NULL: none yet */
    MHD_AccessHandlerCallback handler;
    MHD_RequestCompletedCallback completed;
    void *cls;
};

static double now_seconds(void) {
    struct timespec time;
    clock_gettime(CLOCK_MONOTONIC, &time);
    return (double) time.tv_sec + (double) time.tv_nsec / 1e9;
}

static int loopback(const struct sockaddr *address);

/* The client address of `connection` as 16 bytes (IPv4 as mapped IPv6); every loopback address is ::1. */
static void address_key(struct MHD_Connection *connection, unsigned char key[16]) {
    memset(key, 0, 16);
    const union MHD_ConnectionInfo *info = rf_mhd.get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    const struct sockaddr *address = info != NULL ? info->client_addr : NULL;
    if (address == NULL || loopback(address)) {
        key[15] = 1;
    } else if (address->sa_family == AF_INET) {
        key[10] = key[11] = 0xff;
        memcpy(key + 12, &((const struct sockaddr_in *) address)->sin_addr, 4);
    } else if (address->sa_family == AF_INET6) {
        memcpy(key, &((const struct sockaddr_in6 *) address)->sin6_addr, 16);
    }
}

/* Under the lock: when the connections of `key` without the trusted cookie already fill its slots,
 * shuts down the oldest of them (libmicrohttpd then closes it). */
static void make_room(struct rf_server *server, const unsigned char key[16]) {
    unsigned int count = 0;
    struct rf_deadline *oldest = NULL;
    for (struct rf_deadline *entry = server->open; entry != NULL; entry = entry->next) {
        if (entry->trusted || entry->evicted || memcmp(entry->address, key, 16) != 0) continue;
        count++;
        if (oldest == NULL || entry->opened < oldest->opened) oldest = entry;
    }
    if (count >= server->per_address_limit && oldest != NULL) {
        shutdown(oldest->socket, SHUT_RDWR);
        oldest->evicted = 1;
        oldest->deadline = 0;
    }
}

/* Called by libmicrohttpd when a connection opens and when it closes, before its socket is closed:
 * the entry is removed under the lock, so the reaper never shuts down a socket number reused since. */
static void notify_connection(void *cls, struct MHD_Connection *connection, void **socket_context,
                              enum MHD_ConnectionNotificationCode code) {
    struct rf_server *server = cls;
    pthread_mutex_lock(&server->lock);
    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
        const union MHD_ConnectionInfo *info = rf_mhd.get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
        struct rf_deadline *entry = calloc(1, sizeof *entry);
        if (entry != NULL && info != NULL) {
            entry->socket = info->connect_fd;
            entry->opened = now_seconds();
            entry->deadline = entry->opened + server->header_seconds;
            address_key(connection, entry->address);
            make_room(server, entry->address);
            entry->next = server->open;
            if (server->open != NULL) server->open->previous = entry;
            server->open = entry;
            *socket_context = entry;
        } else {
            free(entry);
        }
    } else if (code == MHD_CONNECTION_NOTIFY_CLOSED && *socket_context != NULL) {
        struct rf_deadline *entry = *socket_context;
        if (entry->previous != NULL) entry->previous->next = entry->next;
        else server->open = entry->next;
        if (entry->next != NULL) entry->next->previous = entry->previous;
        free(entry);
        *socket_context = NULL;
    }
    pthread_mutex_unlock(&server->lock);
}

static void set_deadline(struct rf_server *server, struct MHD_Connection *connection, double seconds) {
    const union MHD_ConnectionInfo *info = rf_mhd.get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    if (info == NULL || info->socket_context == NULL) return;
    pthread_mutex_lock(&server->lock);
    ((struct rf_deadline *) info->socket_context)->deadline = seconds > 0 ? now_seconds() + seconds : 0;
    pthread_mutex_unlock(&server->lock);
}

/* Under the lock: whether the request on `connection` carries the trusted cookie, which it then keeps. */
static void check_cookie(struct rf_server *server, struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = rf_mhd.get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    if (info == NULL || info->socket_context == NULL) return;
    const char *sent = server->cookie_name != NULL
        ? rf_mhd.lookup_connection_value(connection, MHD_COOKIE_KIND, server->cookie_name) : NULL;
    ((struct rf_deadline *) info->socket_context)->trusted = sent != NULL && strcmp(sent, server->cookie_value) == 0;
}

/* The access handler around the caller's: the first call of a request (headers in) starts the body's
 * deadline and notes the trusted cookie; the last (no more body) clears the deadline while the answer is sent. */
static enum MHD_Result access_with_deadlines(void *cls, struct MHD_Connection *connection, const char *url, const char *method,
                              const char *version, const char *upload_data, size_t *upload_data_size,
                              void **request_context) {
    struct rf_server *server = cls;
    if (*request_context == NULL) {
        pthread_mutex_lock(&server->lock);
        check_cookie(server, connection);
        pthread_mutex_unlock(&server->lock);
        set_deadline(server, connection, server->body_seconds);
    }
    else if (upload_data_size != NULL && *upload_data_size == 0) set_deadline(server, connection, 0);
    return server->handler(server->cls, connection, url, method, version, upload_data, upload_data_size,
                           request_context);
}

/* The completion callback around the caller's: the connection's next request gets the header deadline. */
static void completed_with_deadlines(void *cls, struct MHD_Connection *connection, void **request_context,
                      enum MHD_RequestTerminationCode code) {
    struct rf_server *server = cls;
    set_deadline(server, connection, server->header_seconds);
    server->completed(server->cls, connection, request_context, code);
}

static void *reap(void *argument) {
    struct rf_server *server = argument;
    pthread_mutex_lock(&server->lock);
    while (!server->stopping) {
        double now = now_seconds();
        for (struct rf_deadline *entry = server->open; entry != NULL; entry = entry->next) {
            if (entry->deadline > 0 && entry->deadline < now) {
                shutdown(entry->socket, SHUT_RDWR);
                entry->deadline = 0;
            }
        }
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += 250 * 1000 * 1000;
        if (until.tv_nsec >= 1000 * 1000 * 1000) {
            until.tv_sec += 1;
            until.tv_nsec -= 1000 * 1000 * 1000;
        }
        pthread_cond_timedwait(&server->wake, &server->lock, &until);
    }
    pthread_mutex_unlock(&server->lock);
    return NULL;
}

struct rf_server *rf_http_start(const char *host, uint16_t port, MHD_AccessHandlerCallback handler, void *cls,
                                MHD_RequestCompletedCallback completed_by_caller, struct rf_http_limits limits,
                                uint16_t *bound_port, char *error, size_t error_size) {
    if (rf_mhd_load(error, error_size) != 0) return NULL;
    struct sockaddr_storage address;
    int family = resolve(host, port, &address);
    if (family != AF_INET && family != AF_INET6) {
        snprintf(error, error_size, "\"%s\" is not a numeric IPv4 or IPv6 address", host);
        return NULL;
    }
    struct rf_server *server = calloc(1, sizeof *server);
    if (server == NULL) {
        snprintf(error, error_size, "out of memory");
        return NULL;
    }
    server->header_seconds = limits.header_seconds;
    server->handler = handler;
    server->completed = completed_by_caller;
    server->cls = cls;
    server->body_seconds = limits.body_seconds;
    server->per_address_limit = limits.per_address_limit;
    pthread_mutex_init(&server->lock, NULL);
    pthread_cond_init(&server->wake, NULL);
    unsigned int flags = MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD;
    if (family == AF_INET6) flags |= MHD_USE_IPv6;
    server->daemon = rf_mhd.start_daemon(
        flags, port, NULL, NULL, access_with_deadlines, server, MHD_OPTION_SOCK_ADDR, (struct sockaddr *) &address,
        MHD_OPTION_NOTIFY_COMPLETED, completed_with_deadlines, server, MHD_OPTION_NOTIFY_CONNECTION, notify_connection, server,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, limits.header_bytes, MHD_OPTION_CONNECTION_LIMIT,
        limits.connection_limit, MHD_OPTION_CONNECTION_TIMEOUT, limits.idle_seconds, MHD_OPTION_END);
    if (server->daemon == NULL || pthread_create(&server->reaper, NULL, reap, server) != 0) {
        if (server->daemon != NULL) rf_mhd.stop_daemon(server->daemon);
        snprintf(error, error_size, "cannot listen on %s port %u (in use, or not an address of this host)", host,
                 (unsigned) port);
        pthread_mutex_destroy(&server->lock);
        pthread_cond_destroy(&server->wake);
        free(server);
        return NULL;
    }
    const union MHD_DaemonInfo *info = rf_mhd.get_daemon_info(server->daemon, MHD_DAEMON_INFO_BIND_PORT);
    *bound_port = info != NULL ? info->port : port;
    return server;
}

void rf_http_stop(struct rf_server *server) {
    pthread_mutex_lock(&server->lock);
    server->stopping = 1;
    pthread_cond_signal(&server->wake);
    pthread_mutex_unlock(&server->lock);
    pthread_join(server->reaper, NULL);
    rf_mhd.stop_daemon(server->daemon);
    pthread_mutex_destroy(&server->lock);
    pthread_cond_destroy(&server->wake);
    free(server->cookie_name);
    free(server->cookie_value);
    free(server);
}

int rf_http_trust_cookie(struct rf_server *server, const char *name, const char *value) {
    char *copied_name = strdup(name), *copied_value = strdup(value);
    if (copied_name == NULL || copied_value == NULL) {
        free(copied_name);
        free(copied_value);
        return -1;
    }
    pthread_mutex_lock(&server->lock);
    free(server->cookie_name);
    free(server->cookie_value);
    server->cookie_name = copied_name;
    server->cookie_value = copied_value;
    pthread_mutex_unlock(&server->lock);
    return 0;
}

static int loopback(const struct sockaddr *address) {
    if (address == NULL) return 0;
    if (address->sa_family == AF_INET) {
        const struct sockaddr_in *v4 = (const struct sockaddr_in *) address;
        return (ntohl(v4->sin_addr.s_addr) >> 24) == 127;
    }
    if (address->sa_family == AF_INET6) {
        const struct in6_addr *v6 = &((const struct sockaddr_in6 *) address)->sin6_addr;
        if (IN6_IS_ADDR_LOOPBACK(v6)) return 1;
        return IN6_IS_ADDR_V4MAPPED(v6) && v6->s6_addr[12] == 127;
    }
    return 0;
}

int rf_http_peer_is_loopback(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = rf_mhd.get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    return info != NULL && loopback(info->client_addr);
}

int rf_http_is_loopback(const char *host) {
    struct sockaddr_storage address;
    int family = resolve(host, 0, &address);
    return (family == AF_INET || family == AF_INET6) && loopback((const struct sockaddr *) &address);
}
