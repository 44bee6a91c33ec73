/*
 * cmd_impact.c - `cgmap impact`: the entry points that reach FUNC..., their traffic, dead and cold callers
 * (docs/query.md).  Options, loading and output are the queries' shared
 * runner (src/cmd_query.c); the answer is computed by src/query.c.
 */
#include "cmd.h"

int cmd_impact(int argc, char **argv)
{
	return cmd_query_run(argc, argv, CMD_QUERY_IMPACT);
}
