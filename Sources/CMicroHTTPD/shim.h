#include <stdarg.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
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
