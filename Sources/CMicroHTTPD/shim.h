#include <stdarg.h>
#include <stdio.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <microhttpd.h>

/// Starts a daemon with every option in `options` (terminated by MHD_OPTION_END).
/// MHD_start_daemon is C-variadic, which Swift cannot call; this wrapper passes the
/// options through MHD_OPTION_ARRAY instead.
static inline struct MHD_Daemon *stratus_mhd_start_daemon(unsigned int flags, uint16_t port,
                                                           MHD_AccessHandlerCallback handler,
                                                           void *handler_cls,
                                                           struct MHD_OptionItem *options) {
    return MHD_start_daemon(flags, port, NULL, NULL, handler, handler_cls,
                            MHD_OPTION_ARRAY, options, MHD_OPTION_END);
}

/// The port the daemon listens on (useful after binding port 0), or 0 if unknown.
/// MHD_get_daemon_info is C-variadic, which Swift cannot call.
static inline uint16_t stratus_mhd_bound_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}

/// Writes the client's numeric IP address into `buffer` (an empty string if unknown).
/// MHD_get_connection_info is C-variadic, which Swift cannot call.
static inline void stratus_mhd_client_address(struct MHD_Connection *connection, char *buffer, size_t length) {
    if (length == 0) return;
    buffer[0] = 0;
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (info == NULL || info->client_addr == NULL) return;
    const struct sockaddr *address = info->client_addr;
    if (address->sa_family == AF_INET) {
        inet_ntop(AF_INET, &((const struct sockaddr_in *)address)->sin_addr, buffer, (socklen_t)length);
    } else if (address->sa_family == AF_INET6) {
        inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)address)->sin6_addr, buffer, (socklen_t)length);
    }
}

/// Writes the server's own address and port of the connection's socket — `127.0.0.1:8420` or
/// `[::1]:8420` — into `buffer` (an empty string if unknown). getsockname on the connection's
/// descriptor: the address the client actually reached, never a header.
static inline void stratus_mhd_local_address(struct MHD_Connection *connection, char *buffer, size_t length) {
    if (length == 0) return;
    buffer[0] = 0;
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    if (info == NULL) return;
    struct sockaddr_storage storage;
    socklen_t size = sizeof(storage);
    if (getsockname(info->connect_fd, (struct sockaddr *)&storage, &size) != 0) return;
    char host[INET6_ADDRSTRLEN];
    if (storage.ss_family == AF_INET) {
        const struct sockaddr_in *v4 = (const struct sockaddr_in *)&storage;
        if (inet_ntop(AF_INET, &v4->sin_addr, host, sizeof(host)) == NULL) return;
        snprintf(buffer, length, "%s:%u", host, (unsigned)ntohs(v4->sin_port));
    } else if (storage.ss_family == AF_INET6) {
        const struct sockaddr_in6 *v6 = (const struct sockaddr_in6 *)&storage;
        if (inet_ntop(AF_INET6, &v6->sin6_addr, host, sizeof(host)) == NULL) return;
        if (IN6_IS_ADDR_V4MAPPED(&v6->sin6_addr)) {
            snprintf(buffer, length, "%s:%u", host + 7, (unsigned)ntohs(v6->sin6_port));
        } else {
            snprintf(buffer, length, "[%s]:%u", host, (unsigned)ntohs(v6->sin6_port));
        }
    }
}

/// Where libmicrohttpd's messages go instead of standard error: a function and its context.
struct stratus_mhd_logger {
    void (*sink)(void *context, const char *message);
    void *context;
};

/// Formats one libmicrohttpd message and hands it to the logger in `cls` (a `stratus_mhd_logger`).
/// MHD_LogCallback takes a va_list, which Swift cannot format.
static inline void stratus_mhd_log_trampoline(void *cls, const char *format, va_list arguments) {
    const struct stratus_mhd_logger *logger = (const struct stratus_mhd_logger *)cls;
    char message[512];
    vsnprintf(message, sizeof message, format, arguments);
    logger->sink(logger->context, message);
}

/// The trampoline as the MHD_LogCallback to pass with MHD_OPTION_EXTERNAL_LOGGER.
static inline MHD_LogCallback stratus_mhd_log_callback(void) {
    return stratus_mhd_log_trampoline;
}

/// The number of connections the daemon holds right now (parked ones included), or -1 if unknown.
/// MHD_get_daemon_info is C-variadic, which Swift cannot call.
static inline int stratus_mhd_current_connections(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
    return info == NULL ? -1 : (int)info->num_connections;
}

/// Whether this libmicrohttpd was built with TLS (GnuTLS).
static inline int stratus_mhd_supports_tls(void) {
    return MHD_is_feature_supported(MHD_FEATURE_TLS) == MHD_YES;
}
