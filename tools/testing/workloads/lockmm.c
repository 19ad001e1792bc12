// SPDX-License-Identifier: GPL-2.0
/*
 * lockmm FILE: hold this process's own mmap_lock for as long as FILE's
 * first page does not come, as any user can (sframe-hostile-mmaplock).
 * Thread "memread" reads that page of a read-only mapping of FILE through
 * /proc/self/mem: the read holds the lock while its fault waits for the
 * page, which a FUSE server that never answers READ (stallfs) never
 * sends.  A second later thread "munmap" unmaps a page of another file
 * mapping (this program's own) and waits for the lock for writing, so no
 * new reader gets it either.  Prints "lockmm: started" before the
 * threads run and "lockmm: released: ..." when both are done (the FUSE
 * connection aborted), then keeps its mappings until killed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

static void *target;		/* FILE's first page */
static void *victim;		/* a page of this program, to unmap */
static long page;
static int read_errno;
static int unmap_errno;

static void *memread(void *arg)
{
	char byte;
	int fd;

	prctl(PR_SET_NAME, "memread");
	fd = open("/proc/self/mem", O_RDONLY);
	if (fd < 0 || pread(fd, &byte, 1, (off_t)(unsigned long)target) != 1)
		read_errno = errno ? errno : EIO;
	if (fd >= 0)
		close(fd);
	return arg;
}

static void *unmapper(void *arg)
{
	struct timespec second = { 1, 0 };

	prctl(PR_SET_NAME, "munmap");
	nanosleep(&second, NULL);
	if (munmap(victim, page))
		unmap_errno = errno;
	return arg;
}

static void *map_page(const char *path)
{
	int fd = open(path, O_RDONLY);
	void *p;

	if (fd < 0) {
		perror(path);
		return NULL;
	}
	p = mmap(NULL, page, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED) {
		perror(path);
		return NULL;
	}
	return p;
}

int main(int argc, char **argv)
{
	pthread_t reader, writer;

	if (argc != 2) {
		fprintf(stderr, "usage: lockmm FILE\n");
		return 2;
	}
	page = sysconf(_SC_PAGESIZE);
	target = map_page(argv[1]);
	victim = map_page("/proc/self/exe");
	if (!target || !victim)
		return 1;
	/* Output buffered and both threads made before the lock is held. */
	printf("lockmm: started\n");
	fflush(stdout);
	if (pthread_create(&writer, NULL, unmapper, NULL) ||
	    pthread_create(&reader, NULL, memread, NULL)) {
		fprintf(stderr, "lockmm: no threads\n");
		return 1;
	}
	pthread_join(reader, NULL);
	pthread_join(writer, NULL);
	printf("lockmm: released: read %s, munmap %s\n",
	       read_errno ? strerror(read_errno) : "ok",
	       unmap_errno ? strerror(unmap_errno) : "ok");
	fflush(stdout);
	for (;;)
		pause();
}
