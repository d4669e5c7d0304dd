// The physical limit for Stratus's HTTP layer: a bare libmicrohttpd handler that
// answers every request with the same small JSON body, started with the same
// flags and thread pool as StratusHTTPServer. Usage: MHDHello <port> <threads>
#include <microhttpd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char body[] = "{\"status\":\"ok\"}";

static enum MHD_Result answer(void *cls, struct MHD_Connection *connection, const char *url,
                              const char *method, const char *version, const char *upload_data,
                              size_t *upload_data_size, void **req_cls) {
    (void)cls; (void)url; (void)method; (void)version; (void)upload_data;
    if (*req_cls == NULL) { *req_cls = (void *)1; return MHD_YES; }
    if (*upload_data_size != 0) { *upload_data_size = 0; return MHD_YES; }
    struct MHD_Response *response =
        MHD_create_response_from_buffer(strlen(body), (void *)body, MHD_RESPMEM_PERSISTENT);
    MHD_add_response_header(response, "Content-Type", "application/json; charset=utf-8");
    enum MHD_Result result = MHD_queue_response(connection, MHD_HTTP_OK, response);
    MHD_destroy_response(response);
    return result;
}

int main(int argc, char **argv) {
    unsigned short port = argc > 1 ? (unsigned short)atoi(argv[1]) : 0;
    unsigned int threads = argc > 2 ? (unsigned int)atoi(argv[2]) : 4;
    unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME
                       | MHD_USE_ERROR_LOG | MHD_USE_TURBO;
    struct MHD_Daemon *daemon = MHD_start_daemon(flags, port, NULL, NULL, answer, NULL,
                                                 MHD_OPTION_THREAD_POOL_SIZE, threads,
                                                 MHD_OPTION_CONNECTION_LIMIT, 4096,
                                                 MHD_OPTION_END);
    if (daemon == NULL) { fprintf(stderr, "could not start on port %u\n", port); return 1; }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    printf("ready %u\n", info == NULL ? port : info->port);
    fflush(stdout);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    sigprocmask(SIG_BLOCK, &set, NULL);
    int signal_number;
    sigwait(&set, &signal_number);
    MHD_stop_daemon(daemon);
    return 0;
}
