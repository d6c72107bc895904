// libpq, PostgreSQL's C client, for PKPostgres. Its headers come from Debian's libpq-dev (pkg-config: libpq).
#include <libpq-fe.h>
