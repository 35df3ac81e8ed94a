#ifndef CMicroHTTPD_SHIM_H
#define CMicroHTTPD_SHIM_H
#include <microhttpd.h>
#endif
