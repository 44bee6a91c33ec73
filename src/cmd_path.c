/*
 * cmd_path.c - `cgmap path`: the shortest call paths from FROM to TO
 * (docs/query.md).  Options, loading and output are the queries' shared
 * runner (src/cmd_query.c); the answer is computed by src/query.c.
 */
#include "cmd.h"

int cmd_path(int argc, char **argv)
{
	return cmd_query_run(argc, argv, CMD_QUERY_PATH);
}
