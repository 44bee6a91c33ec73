/*
 * cgmap/error.h - errors as negative returns with one message set once.
 *
 * A failing call sets the thread's message (lower case, naming the subject
 * in quotes) and returns a negative CGM_E* code; callers pass the code up
 * without setting a new message, and the command prints it once.
 */
#ifndef CGMAP_ERROR_H
#define CGMAP_ERROR_H

enum {
	CGM_OK = 0,
	CGM_EUSAGE = -1,   /* bad command line */
	CGM_ESOURCE = -2,  /* cannot connect or read the catalog / files */
	CGM_EINPUT = -3,   /* bad input file (snapshot, runtime data) */
	CGM_EIO = -4       /* cannot write output */
};

/* Set the message (printf style) and return code, for `return cgm_error(...)`. */
int cgm_error(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The last message of this thread, "" when none. */
const char *cgm_error_message(void);
void cgm_error_clear(void);

#endif
