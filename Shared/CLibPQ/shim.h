#ifndef CLibPQ_SHIM_H
#define CLibPQ_SHIM_H
#include <libpq-fe.h>

// PG_DIAG_* are character-literal macros, which Swift does not import.
static const int CLIBPQ_DIAG_SQLSTATE = PG_DIAG_SQLSTATE;
// PG_DIAG_* are character-literal macros, which Swift does not import.
static const int CLIBPQ_DIAG_MESSAGE_PRIMARY = PG_DIAG_MESSAGE_PRIMARY;

// A notice processor that drops notices: libpq's default prints them on stderr, bypassing the logger.
static inline void clibpq_ignore_notice(void *arg, const char *message) {
    (void)arg;
    (void)message;
}

#endif
