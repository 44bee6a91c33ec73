/*
 * cmd_callees.c - `cgmap callees`: the functions FUNC calls, transitively
 * (docs/query.md).  Options, loading and output are the queries' shared
 * runner (src/cmd_query.c); the answer is computed by src/query.c.
 */
#include "cmd.h"

int cmd_callees(int argc, char **argv)
{
	return cmd_query_run(argc, argv, CMD_QUERY_CALLEES);
}
