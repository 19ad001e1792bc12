/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sframectl serve: what it does with a file the module reported
 * (serve_supply.c), and the state that takes.  The event loop (serve.c)
 * hands it reports and ended children; it owns the scheduler
 * (serve_queue.h), the workers (serve_jobs.h), the record of files
 * handled (serve_seen.h) and the disk cache (serve_cache.h).
 */
#ifndef _SFRAMECTL_SERVE_SUPPLY_H
#define _SFRAMECTL_SERVE_SUPPLY_H

#include <stdbool.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "serve_cache.h"
#include "serve_jobs.h"
#include "serve_queue.h"
#include "serve_seen.h"
#include "sframectl.h"

/*
 * A user's file over SERVE_OWNER_FILE_MAX is not served; nor is anyone's
 * over SERVE_FILE_MAX, root's included: the service holds each file it
 * reads whole, in a memory file its child maps, up to --jobs + 1 at
 * once, and its unit's MemoryMax= allows for that.
 */
#define SERVE_OWNER_FILE_MAX	(256LL << 20)
#define SERVE_FILE_MAX		(1LL << 30)

/*
 * A file root owns and no one else may write: root's, whoever maps it;
 * a user's share pays for no other.
 */
static inline bool serve_roots(const struct stat *st)
{
	return st->st_uid == 0 && !(st->st_mode & 0022);
}

struct serve {
	int dev;			/* /dev/sframe_unwind */
	struct serve_cache cache;
	bool root_only;
	const char *run_dir;		/* where status finds our state */
	bool publish_failed;		/* said once */
	struct serve_seen_set seen;
	struct serve_queue queue;
	struct serve_jobs jobs;
	struct sframe_serve_state st;
	bool resweep;			/* files were put off: sweep */
};

void serve_file(struct serve *s, int fd, bool swept, uid_t owner);
void serve_pump(struct serve *s);
void serve_complete(struct serve *s, struct serve_job *j);
void serve_publish(struct serve *s, const char *doing);
const char *serve_idle(const struct serve *s);

#endif /* _SFRAMECTL_SERVE_SUPPLY_H */
