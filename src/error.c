/*
 * error.c - the per-thread error message (see cgmap/error.h).
 * In: a code and a message.  Out: the code; the message stays in a
 * thread-local buffer until the next error on that thread.
 */
#include "cgmap/error.h"

#include <stdarg.h>
#include <stdio.h>

static _Thread_local char last_message[2048];

int cgm_error(int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(last_message, sizeof(last_message), fmt, ap);
	va_end(ap);
	return code;
}

const char *cgm_error_message(void)
{
	return last_message;
}

void cgm_error_clear(void)
{
	last_message[0] = '\0';
}
