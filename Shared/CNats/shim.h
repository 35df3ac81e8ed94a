#ifndef CNats_SHIM_H
#define CNats_SHIM_H
#include <nats/nats.h>
#endif
