// SPDX-License-Identifier: GPL-2.0
/*
 * sframectl serve: the generator children.  A file not in the cache is
 * translated by a confined child (serve_gen.c, sandbox.c), a few at once,
 * or waits for one (serve_queue.c); what a child returns is loaded, which
 * checks it as load checks a file, and only then cached.  Each outcome
 * is counted under its name for sframectl status.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "serve.h"

/* Count what loading @seen's sidecar (from the cache or not) came to. */
void serve_loaded(struct serve *s, size_t seen, int ret,
			 bool from_cache, bool fill)
{
	if (ret == -ENODATA)
		s->st.own++;
	else if (ret == -EEXIST)
		s->st.by_hand++;
	else if (ret > 0)
		s->st.failed[SFRAME_SERVE_NOT_LOADED]++;
	else if (!ret && from_cache)
		s->st.cached++;
	else if (!ret)
		s->st.generated++;
	s->st.filled += fill && !ret;
	/* The module's refusal for want of memory may not last. */
	s->seen.rec[seen].no_sidecar = ret == EXIT_INVALID || ret == -ENODATA;
}

/*
 * Worker @w's job has ended as @end: check and load its result, then
 * cache it.  It came from untrusted code: the load checks it as load
 * checks a file, once, and only what passed is cached.
 */
void serve_job_end(struct serve *s, struct serve_work *w,
			  enum serve_gen_end end)
{
	char why[SFRAME_MSG_MAX];
	bool invalid = false, again = false;
	int fail = -1, ret = 0;

	if (end == SERVE_GEN_DONE) {
		ret = sframe_load_sidecar_obj(s->dev, w->fd, w->name,
					      &w->code, w->key.path,
					      w->gen.buf, w->gen.len, w->fill);
		invalid = ret == EXIT_INVALID;
	}

	switch (invalid ? SERVE_GEN_TOO_LARGE : end) {
	case SERVE_GEN_DONE:
		serve_loaded(s, w->seen, ret, false, w->fill);
		/* Refused for want of memory: perhaps before the checks. */
		if (ret > 0)
			break;
		ret = 0;
		if (serve_may_store(s, w->owner, w->gen.len))
			ret = serve_cache_put(&s->cache, &w->key, w->gen.buf,
					      w->gen.len);
		else
			s->st.not_stored++;
		if (ret) {
			fprintf(stderr, "sframectl: serve: %s: %s\n",
				w->key.path, strerror(-ret));
			fail = SFRAME_SERVE_CACHE;
		}
		break;
	case SERVE_GEN_FAILED:
		fprintf(stderr, "sframectl: serve: %s: cannot generate SFrame: %s\n",
			w->name, serve_gen_why(&w->gen, why, sizeof(why)));
		fail = SFRAME_SERVE_NO_SFRAME;
		break;
	case SERVE_GEN_NOT_STARTED:
		fprintf(stderr, "sframectl: serve: %s: no generator child could run: %s\n",
			w->name, serve_gen_why(&w->gen, why, sizeof(why)));
		fail = SFRAME_SERVE_NO_SFRAME;
		again = true;		/* not the file's doing */
		break;
	case SERVE_GEN_KILLED:
		fprintf(stderr, "sframectl: serve: %s: generator killed by signal %d\n",
			w->name, w->gen.signal);
		fail = SFRAME_SERVE_GEN_KILLED;
		/*
		 * SIGKILL before its deadline was not ours: the OOM killer,
		 * which takes a child first whoever's memory ran out.
		 */
		again = w->gen.signal == SIGKILL;
		break;
	case SERVE_GEN_OVER_TIME:
		fprintf(stderr, "sframectl: serve: %s: generator over time (%u ms): killed\n",
			w->name, SERVE_GEN_WALL_MS);
		fail = SFRAME_SERVE_GEN_OVER_TIME;
		break;
	default:
		fprintf(stderr, "sframectl: serve: %s: generator output invalid%s\n",
			w->name, invalid ? "" : ": too large");
		fail = SFRAME_SERVE_GEN_INVALID;
		break;
	}
	if (fail >= 0) {
		s->st.failed[fail]++;
		/* Tried again at its next mapping, or never in this run. */
		s->seen.rec[w->seen].no_sidecar = !again;
	}
	serve_gen_free(&w->gen);
	close(w->fd);
	w->fd = -1;
	s->running--;
	s->running_swept -= w->swept;
}

/*
 * Translate @name's @size bytes, sealed in the memory file @input, in a
 * child; or queue the file, open at @fd, for later when no worker is
 * free for it (@swept: only a sweep reported it).  Only the child holds
 * the bytes while it runs.
 */
void serve_generate(struct serve *s, int fd, size_t seen, bool swept,
		    uid_t owner, const char *name, int input, size_t size,
		    const struct sframe_code *code, bool fill,
		    const struct serve_cache_key *key)
{
	struct serve_work *w = s->work;
	enum serve_gen_end end;

	while (w < s->work + s->jobs && w->gen.pid)
		w++;
	if (w == s->work + s->jobs || !serve_may_start(s, swept, owner)) {
		/* Its supply is paid when it leaves the queue. */
		serve_pace_refund(s, owner, s->seen.rec[seen].size);
		serve_wait(s, fd, seen, swept, owner, name);
		return;
	}
	w->fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	w->seen = seen;
	w->code = *code;
	w->fill = fill;
	w->swept = swept;
	w->owner = owner;
	snprintf(w->name, sizeof(w->name), "%s", name);
	w->key = *key;
	s->running++;
	s->running_swept += swept;
	w->gen = (struct serve_gen_job){ .out = -1 };
	/* The child gets this file's bytes, sealed, and nothing else. */
	if (w->fd < 0)
		end = serve_gen_not_started(&w->gen, "dup", errno);
	else
		end = serve_gen_start_translate(&w->gen, input, size, fill);
	if (end != SERVE_GEN_RUNNING)
		serve_job_end(s, w, end);
}

/* The service ends: its children with it, and the waiting forgotten. */
void serve_stop_jobs(struct serve *s)
{
	unsigned int i;

	for (i = 0; i < s->jobs; i++) {
		if (!s->work[i].gen.pid)
			continue;
		serve_gen_free(&s->work[i].gen);
		close(s->work[i].fd);
	}
	for (i = 0; i < s->queued; i++)
		close(s->queue[i].fd);
	s->running = s->queued = s->running_swept = s->queued_swept = 0;
}
