// SPDX-License-Identifier: GPL-2.0
/*
 * sframectl serve: from a report to a sidecar loaded.  A file the module
 * reports is checked against its owner's share and the record of files
 * handled, read once through the kernel's descriptor, and named in the
 * cache by a digest of those bytes (serve_cache.c); its sidecar comes
 * from the cache at once, else from a confined generator child
 * (serve_jobs.c), now or when the scheduler (serve_queue.c) lets it
 * start.  What a child returns came from untrusted code: it is loaded,
 * which checks it as load checks a file, and only then cached.  Each
 * outcome is counted under its name for sframectl status.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/uio.h>

#include "atomic_write.h"
#include "serve_supply.h"

/* The name @fd's file has now, for messages only. */
static void serve_fd_name(int fd, char *name, size_t size)
{
	char link[64], path[PATH_MAX];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, path, sizeof(path));
	if (n <= 0)
		snprintf(name, size, "(descriptor %d)", fd);
	else
		sframe_log_name(path, n, name, size);
}

/* Tell sframectl status what we are doing and have done. */
void serve_publish(struct serve *s, const char *doing)
{
	char path[PATH_MAX], text[1024];
	size_t size;
	int ret;

	s->st.doing = doing;
	size = sframe_serve_format(&s->st, text, sizeof(text));
	snprintf(path, sizeof(path), "%s/status", s->run_dir);
	ret = atomic_write(s->run_dir, path, &(struct iovec){ text, size }, 1);
	if (ret && !s->publish_failed) {
		fprintf(stderr, "sframectl: serve: %s: %s; status will not show us\n",
			path, strerror(-ret));
		s->publish_failed = true;
	}
}

/* "idle" once no child runs and none waits. */
const char *serve_idle(const struct serve *s)
{
	return serve_queue_idle(&s->queue) ? "idle" : "generating";
}

/*
 * The cache entry of @obj for @fill in *@key: named by a digest of the
 * bytes read for it now, every time.  A digest kept from an earlier
 * supply would name another file's sidecar once a user's file with the
 * same identity gave way to it (an inode reused, times set back).
 */
static int serve_key(struct serve *s, const struct sframe_input *obj,
		     bool fill, struct serve_cache_key *key)
{
	u8 digest[SERVE_CACHE_DIGEST];

	if (serve_cache_file_digest(obj->file, obj->file_size, digest))
		return -ENOMEM;
	return serve_cache_key(&s->cache, digest, fill, key);
}

/*
 * Is the file open at @fd no longer what its record @rec says it was when
 * reported: another size, or another change time, which no user can set
 * back?  Best effort: a store through a shared mapping moves no time
 * until written back.  What names the cache entry is the digest of the
 * bytes read, whatever this says.
 */
static bool serve_changed(int fd, const struct serve_seen *rec)
{
	struct stat st;

	return fstat(fd, &st) || st.st_size != rec->size ||
	       st.st_ctim.tv_sec != rec->ctime.tv_sec ||
	       st.st_ctim.tv_nsec != rec->ctime.tv_nsec;
}

/* Count what loading @seen's sidecar (from the cache or not) came to. */
static void serve_loaded(struct serve *s, size_t seen, int ret,
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
 * Queue @w until the scheduler lets it start.  One with no place is put
 * off until the next sweep, which finds it again if it is still mapped;
 * one mapped now is also counted (the loop waits for room in the whole
 * queue before it hands one over).
 */
static void serve_wait(struct serve *s, const struct serve_waiting *w,
		       const char *name)
{
	enum serve_admit ret = serve_queue_admit(&s->queue, w);

	s->seen.rec[w->seen].no_sidecar = false;
	s->resweep |= ret != SERVE_ADMITTED;
	if (ret == SERVE_OWNER_FULL) {
		fprintf(stderr, "sframectl: serve: %s: %u files of uid %u waiting already; dropped\n",
			name, SERVE_QUEUE_OWNER, (unsigned int)w->owner);
		s->st.failed[SFRAME_SERVE_OWNER_SHARE]++;
	} else if (ret == SERVE_QUEUE_FULL) {
		fprintf(stderr, "sframectl: serve: %s: %u files waiting already; dropped\n",
			name, s->queue.queued);
		s->st.failed[SFRAME_SERVE_QUEUE_FULL]++;
	}
}

/*
 * A child of @j's has ended: check and load its result, then cache it.
 * It came from untrusted code: the load checks it as load checks a file,
 * once, and only what passed is cached.  The worker is free afterwards.
 */
void serve_complete(struct serve *s, struct serve_job *j)
{
	char why[SFRAME_MSG_MAX];
	bool invalid = false, again = false;
	int fail = -1, ret = 0;

	if (j->end == SERVE_GEN_DONE) {
		ret = sframe_load_sidecar_obj(s->dev, j->fd, j->name,
					      &j->code, j->key.path,
					      j->gen.buf, j->gen.len, j->fill,
					      false);
		invalid = ret == EXIT_INVALID;
	}

	switch (invalid ? SERVE_GEN_TOO_LARGE : j->end) {
	case SERVE_GEN_DONE:
		serve_loaded(s, j->seen, ret, false, j->fill);
		/* Refused for want of memory: perhaps before the checks. */
		if (ret > 0)
			break;
		ret = 0;
		if (serve_queue_may_store(&s->queue, j->owner, j->gen.len))
			ret = serve_cache_put(&s->cache, &j->key, j->gen.buf,
					      j->gen.len);
		else
			s->st.not_stored++;
		if (ret) {
			fprintf(stderr, "sframectl: serve: %s: %s\n",
				j->key.path, strerror(-ret));
			fail = SFRAME_SERVE_CACHE;
		}
		break;
	case SERVE_GEN_FAILED:
		fprintf(stderr, "sframectl: serve: %s: cannot generate SFrame: %s\n",
			j->name, serve_gen_why(&j->gen, why, sizeof(why)));
		fail = SFRAME_SERVE_NO_SFRAME;
		break;
	case SERVE_GEN_NOT_STARTED:
		fprintf(stderr, "sframectl: serve: %s: no generator child could run: %s\n",
			j->name, serve_gen_why(&j->gen, why, sizeof(why)));
		fail = SFRAME_SERVE_NO_SFRAME;
		again = true;		/* not the file's doing */
		break;
	case SERVE_GEN_KILLED:
		fprintf(stderr, "sframectl: serve: %s: generator killed by signal %d\n",
			j->name, j->gen.signal);
		fail = SFRAME_SERVE_GEN_KILLED;
		/*
		 * SIGKILL before its deadline was not ours: the OOM killer,
		 * which takes a child first whoever's memory ran out.
		 */
		again = j->gen.signal == SIGKILL;
		break;
	case SERVE_GEN_OVER_TIME:
		fprintf(stderr, "sframectl: serve: %s: generator over time (%u ms): killed\n",
			j->name, SERVE_GEN_WALL_MS);
		fail = SFRAME_SERVE_GEN_OVER_TIME;
		break;
	case SERVE_GEN_STARVED:
		fprintf(stderr, "sframectl: serve: %s: generator starved of CPU time (%u times its %u ms passed): killed, tried again at its next mapping\n",
			j->name, SERVE_GEN_WALL_STARVED, SERVE_GEN_WALL_MS);
		fail = SFRAME_SERVE_GEN_OVER_TIME;
		again = true;		/* the machine's doing, not the file's */
		break;
	default:
		fprintf(stderr, "sframectl: serve: %s: generator output invalid%s\n",
			j->name, invalid ? "" : ": too large");
		fail = SFRAME_SERVE_GEN_INVALID;
		break;
	}
	if (fail >= 0) {
		s->st.failed[fail]++;
		/* Tried again at its next mapping, or never in this run. */
		s->seen.rec[j->seen].no_sidecar = !again;
	}
	serve_queue_done(&s->queue, j->swept, j->owner);
	serve_jobs_release(j);
}

/*
 * Translate @w's file, named @name, whose @size bytes are sealed in the
 * memory file @input, in a child; or queue it for later when the
 * scheduler lets no child start on it now.  Only the child holds the
 * bytes while it runs.
 */
static void serve_generate(struct serve *s, const struct serve_waiting *w,
			   const char *name, int input, size_t size,
			   const struct sframe_code *code, bool fill,
			   const struct serve_cache_key *key)
{
	struct serve_job *j = serve_jobs_free(&s->jobs);

	if (!j || !serve_queue_may_start(&s->queue, w->swept, w->owner)) {
		/* Its supply is paid when it leaves the queue. */
		serve_queue_refund(&s->queue, w->owner, w->size);
		serve_wait(s, w, name);
		return;
	}
	j->seen = w->seen;
	j->code = *code;
	j->fill = fill;
	j->swept = w->swept;
	j->owner = w->owner;
	snprintf(j->name, sizeof(j->name), "%s", name);
	j->key = *key;
	serve_queue_started(&s->queue, w->swept, w->owner);
	serve_jobs_start(j, w->fd, input, size);
	if (j->end != SERVE_GEN_RUNNING)
		serve_complete(s, j);
}

/*
 * Supply the object @w (its descriptor and record): its sidecar from
 * the cache at once, else from a generator child.
 */
static void serve_supply(struct serve *s, const struct serve_waiting *w)
{
	char msg[SFRAME_MSG_MAX] = "", name[PATH_MAX];
	struct serve_seen *rec = &s->seen.rec[w->seen];
	bool fill, changed;
	struct serve_cache_key key;
	struct sframe_input obj;
	struct sframe_code code;
	u8 *side = NULL;
	int ret, input = -1;
	size_t size;

	/* What it costs its owner. */
	serve_queue_paced(&s->queue, w->owner, w->size, true);
	serve_fd_name(w->fd, name, sizeof(name));
	/* A file that waited was read once already through this open. */
	if (lseek(w->fd, 0, SEEK_SET)) {
		fprintf(stderr, "sframectl: serve: %s: %s\n", name,
			strerror(errno));
		s->st.failed[SFRAME_SERVE_UNREADABLE]++;
		goto published;
	}
	/*
	 * No more than its report's size, on which its share was judged;
	 * held once, sealed, as a child would get it.
	 */
	input = sframe_input_load_sealed(&obj, w->fd, name, rec->size, msg,
					 sizeof(msg));
	changed = serve_changed(w->fd, rec);
	if (input < 0 || changed) {
		fprintf(stderr, "sframectl: serve: %s: %s\n", name,
			changed ? "changed after it was reported; not served" :
				  msg);
		s->st.failed[changed ? SFRAME_SERVE_CHANGED :
				       SFRAME_SERVE_UNREADABLE]++;
		/* Its new self gets a record of its own when swept again. */
		s->resweep |= changed;
		goto out;
	}
	if (sframe_elf_code(obj.file, obj.file_size, &code, msg,
			    sizeof(msg))) {
		s->st.not_elf++;
		goto out;
	}
	/* Its own section may leave code out: fill only that. */
	fill = code.has_sframe;
	if (serve_key(s, &obj, fill, &key)) {
		s->st.failed[SFRAME_SERVE_CACHE]++;
		goto out;
	}
	if (!serve_cache_get(&s->cache, &key, &side, &size)) {
		ret = sframe_load_sidecar_obj(s->dev, w->fd, name, &code,
					      key.path, side, size, fill, true);
		if (ret != EXIT_INVALID) {
			serve_loaded(s, w->seen, ret, true, fill);
			goto out;
		}
		fprintf(stderr, "sframectl: serve: %s: not a sidecar for %s; made again\n",
			key.path, name);
		serve_cache_drop(&s->cache, &key);
	}
	serve_generate(s, w, name, input, obj.file_size, &code, fill, &key);
out:
	free(side);
	sframe_input_free(&obj);
	if (input >= 0)
		close(input);
published:
	serve_publish(s, s->st.doing);
}

/*
 * The record of every file handled is full: forget all but those of the
 * files in flight (running or waiting), whose indices are renumbered.
 * 0, or -1 without memory.
 */
static int serve_forget(struct serve *s)
{
	size_t *in_use[SERVE_JOBS_MAX + SERVE_QUEUE_MAX];
	unsigned int n;

	n = serve_jobs_seen(&s->jobs, in_use);
	n += serve_queue_seen(&s->queue, in_use + n);
	return serve_seen_keep(&s->seen, in_use, n);
}

/*
 * Supply the object the module reported open at @fd (@swept: found by a
 * sweep; @owner: charged for it), unless it is not ours to do or is
 * known to need nothing from us.  A report says it has no sidecar now
 * (never had one, or it was released with the file's entry): one
 * supplied before is supplied again, from the cache.
 */
void serve_file(struct serve *s, int fd, bool swept, uid_t owner)
{
	struct serve_waiting w = { .fd = fd, .swept = swept };
	char name[PATH_MAX];
	struct serve_seen *seen;
	struct stat st;
	bool first, roots;

	if (fstat(fd, &st) || !S_ISREG(st.st_mode))
		return;
	roots = serve_roots(&st);
	/* Before remembering it: a user's flood must not grow our memory. */
	if (s->root_only && !roots) {
		s->st.not_roots++;
		return;
	}
	w.owner = roots ? 0 : owner;
	w.size = st.st_size;
	if (w.owner && st.st_size > SERVE_OWNER_FILE_MAX) {
		serve_fd_name(fd, name, sizeof(name));
		fprintf(stderr, "sframectl: serve: %s: %lld bytes, over the %lld a file of uid %u may have; not served\n",
			name, (long long)st.st_size, SERVE_OWNER_FILE_MAX,
			(unsigned int)w.owner);
		s->st.failed[SFRAME_SERVE_OWNER_SHARE]++;
		return;
	}
	if (st.st_size > SERVE_FILE_MAX) {
		serve_fd_name(fd, name, sizeof(name));
		fprintf(stderr, "sframectl: serve: %s: %lld bytes, over the %lld the service reads of a file; not served\n",
			name, (long long)st.st_size, SERVE_FILE_MAX);
		s->st.failed[SFRAME_SERVE_TOO_LARGE]++;
		return;
	}
	seen = serve_remember(&s->seen, &st, &first);
	/* All remembered: forget all but those in flight. */
	if (!seen && s->seen.nr == SERVE_SEEN_MAX && !serve_forget(s))
		seen = serve_remember(&s->seen, &st, &first);
	if (!seen) {
		serve_fd_name(fd, name, sizeof(name));
		fprintf(stderr, "sframectl: serve: %s: no memory to remember it; put off\n",
			name);
		s->st.failed[SFRAME_SERVE_QUEUE_FULL]++;
		s->resweep = true;
		return;
	}
	w.seen = seen - s->seen.rec;
	/* One child per file: its end supplies every mapping of it. */
	if (!first && (seen->no_sidecar || serve_jobs_busy(&s->jobs, w.seen) ||
		       serve_queue_holds(&s->queue, w.seen, swept)))
		return;
	/* Its owner's pace first: a flood of one user's waits its turn. */
	if (!serve_queue_paced(&s->queue, w.owner, w.size, false)) {
		serve_fd_name(fd, name, sizeof(name));
		serve_wait(s, &w, name);
		return;
	}
	/* What fails before the hand-over is logged once, not tried again. */
	seen->no_sidecar = true;
	serve_supply(s, &w);
}

/* Start the files waiting while the scheduler lets them. */
void serve_pump(struct serve *s)
{
	struct serve_waiting next;

	while (serve_queue_next(&s->queue, &next)) {
		/* As serve_file(): a failure is logged once. */
		s->seen.rec[next.seen].no_sidecar = true;
		serve_supply(s, &next);
		close(next.fd);
	}
}
