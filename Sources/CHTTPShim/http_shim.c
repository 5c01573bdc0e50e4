#include "http_shim.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

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

struct MHD_Daemon *rf_http_start(const char *host, uint16_t port, MHD_AccessHandlerCallback handler, void *cls,
                                 MHD_RequestCompletedCallback completed, size_t header_bytes,
                                 unsigned int connection_limit, unsigned int timeout_seconds, uint16_t *bound_port,
                                 char *error, size_t error_size) {
    struct sockaddr_storage address;
    int family = resolve(host, port, &address);
    if (family != AF_INET && family != AF_INET6) {
        snprintf(error, error_size, "\"%s\" is not a numeric IPv4 or IPv6 address", host);
        return NULL;
    }
    unsigned int flags = MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD;
    if (family == AF_INET6) flags |= MHD_USE_IPv6;
    struct MHD_Daemon *daemon = MHD_start_daemon(
        flags, port, NULL, NULL, handler, cls, MHD_OPTION_SOCK_ADDR, (struct sockaddr *) &address,
        MHD_OPTION_NOTIFY_COMPLETED, completed, cls, MHD_OPTION_CONNECTION_MEMORY_LIMIT, header_bytes,
        MHD_OPTION_CONNECTION_LIMIT, connection_limit, MHD_OPTION_CONNECTION_TIMEOUT, timeout_seconds,
        MHD_OPTION_END);
    if (daemon == NULL) {
        snprintf(error, error_size, "cannot listen on %s port %u (in use, or not an address of this host)", host,
                 (unsigned) port);
        return NULL;
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    *bound_port = info != NULL ? info->port : port;
    return daemon;
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
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    return info != NULL && loopback(info->client_addr);
}

int rf_http_is_loopback(const char *host) {
    struct sockaddr_storage address;
    int family = resolve(host, 0, &address);
    return (family == AF_INET || family == AF_INET6) && loopback((const struct sockaddr *) &address);
}
