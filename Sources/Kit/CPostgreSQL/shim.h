#ifndef SUSI_CPOSTGRESQL_SHIM_H
#define SUSI_CPOSTGRESQL_SHIM_H
// The PostgreSQL client library, libpq: connections, queries and notifications.
#include <libpq-fe.h>
#endif
