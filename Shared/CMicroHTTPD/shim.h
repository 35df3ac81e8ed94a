#ifndef CMicroHTTPD_SHIM_H
#define CMicroHTTPD_SHIM_H
#include <microhttpd.h>
#include <sys/socket.h>

/* The type of MHD_OPTION_URI_LOG_CALLBACK's function, which microhttpd.h names nowhere. */
typedef void *(*cmhd_uri_log_callback) (void *context, const char *uri, struct MHD_Connection *connection);

/* MHD_start_daemon is variadic (Swift cannot call it): the options the HTTPServer module uses, in one fixed call. */
static inline struct MHD_Daemon *
cmhd_start_daemon (unsigned int flags, const struct sockaddr *address,
                   MHD_AccessHandlerCallback handler, void *handler_context,
                   MHD_RequestCompletedCallback completed, void *completed_context,
                   cmhd_uri_log_callback uri_log, void *uri_log_context,
                   MHD_LogCallback logger, void *logger_context,
                   unsigned int connection_limit, unsigned int per_address_limit,
                   unsigned int timeout_seconds, unsigned int thread_pool_size,
                   int reuse_port)
{
  /* MHD_OPTION_END in place of the reuse option ends the list early: "present and false" would change the default. */
  return MHD_start_daemon (flags, 0, NULL, NULL, handler, handler_context,
                           MHD_OPTION_SOCK_ADDR, address,
                           MHD_OPTION_NOTIFY_COMPLETED, completed, completed_context,
                           MHD_OPTION_URI_LOG_CALLBACK, uri_log, uri_log_context,
                           MHD_OPTION_EXTERNAL_LOGGER, logger, logger_context,
                           MHD_OPTION_CONNECTION_LIMIT, connection_limit,
                           MHD_OPTION_PER_IP_CONNECTION_LIMIT, per_address_limit,
                           MHD_OPTION_CONNECTION_TIMEOUT, timeout_seconds,
                           MHD_OPTION_THREAD_POOL_SIZE, thread_pool_size,
                           reuse_port ? MHD_OPTION_LISTENING_ADDRESS_REUSE : MHD_OPTION_END, 1u,
                           MHD_OPTION_END);
}

/* MHD_get_daemon_info is variadic: the bound port, or 0 when MHD cannot tell. */
static inline uint16_t
cmhd_daemon_bind_port (struct MHD_Daemon *daemon)
{
  const union MHD_DaemonInfo *info = MHD_get_daemon_info (daemon, MHD_DAEMON_INFO_BIND_PORT);
  return NULL == info ? 0 : info->port;
}

/* MHD_get_daemon_info is variadic: the connections open now. */
static inline unsigned int
cmhd_daemon_connections (struct MHD_Daemon *daemon)
{
  const union MHD_DaemonInfo *info = MHD_get_daemon_info (daemon, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
  return NULL == info ? 0 : info->num_connections;
}

/* MHD_get_connection_info is variadic: the client's address, or NULL when MHD cannot tell. */
static inline const struct sockaddr *
cmhd_connection_client_address (struct MHD_Connection *connection)
{
  const union MHD_ConnectionInfo *info = MHD_get_connection_info (connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
  return NULL == info ? NULL : info->client_addr;
}

#endif
