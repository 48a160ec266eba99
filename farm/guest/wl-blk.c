// SPDX-License-Identifier: GPL-2.0
/*
 * Workloads "blk" (virtio-blk, /dev/vda), "nvme" (/dev/nvme0n1) and
 * "installed-blk" (a file on an installed system's root disk): write
 * a seeded pattern with O_DIRECT, so every byte is DMA'd through the
 * device's IOMMU mappings rather than served by the page cache, then read
 * it back in a different chunking and check every byte.
 *
 * Parameters: sac.W.dev (device name under /dev), sac.W.mib (default 8),
 * sac.W.seed (default: from the job's nonce, so a stale image never
 * passes), sac.W.wait_s (how long a probing controller may take to show
 * its disk, default 10).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "workloads.h"

#define GRANULE		4096UL
#define MAX_CHUNK	(256 * 1024UL)

struct blk_kind {
	const char *def_dev;
	/* Instead of a disk: a file of the root file system, on its disk. */
	const char *file;
	/* A driver-side trace that the disk is coming, worth waiting for. */
	const char *probe_dir;
	const char *probe_prefix;
};

struct chunk {
	unsigned long off;
	unsigned long len;
};

struct blk_job {
	struct sac_result *r;
	int fd;
	char path[64];
	unsigned long total;
	u64 seed;
	unsigned char *buf;
	struct chunk *chunks;
	size_t nchunks;
	u64 rng;
	unsigned long long wrong, first_bad;
};

static u64 mix64(u64 x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static u64 next_rand(struct blk_job *j)
{
	j->rng = mix64(j->rng);
	return j->rng;
}

/* The pattern word at byte offset off (a multiple of 8). */
static u64 pattern(u64 seed, unsigned long off)
{
	return mix64(seed ^ mix64(off));
}

static void fill(const struct blk_job *j, unsigned char *buf,
		 unsigned long off, unsigned long len)
{
	unsigned long i;
	u64 v;

	for (i = 0; i < len; i += 8) {
		v = pattern(j->seed, off + i);
		memcpy(buf + i, &v, 8);
	}
}

static void check(struct blk_job *j, const unsigned char *buf,
		  unsigned long off, unsigned long len)
{
	unsigned long i, b;
	u64 want;
	unsigned char w[8];

	for (i = 0; i < len; i += 8) {
		want = pattern(j->seed, off + i);
		if (!memcmp(buf + i, &want, 8))
			continue;
		memcpy(w, &want, 8);
		for (b = 0; b < 8; b++) {
			if (buf[i + b] == w[b])
				continue;
			if (!j->wrong++)
				j->first_bad = off + i + b;
		}
	}
}

/* Random chunk sizes (multiples of GRANULE up to MAX_CHUNK), shuffled. */
static void plan(struct blk_job *j)
{
	unsigned long off = 0, len;
	struct chunk t;
	size_t i, k;

	j->nchunks = 0;
	while (off < j->total) {
		len = (next_rand(j) % (MAX_CHUNK / GRANULE) + 1) * GRANULE;
		if (len > j->total - off)
			len = j->total - off;
		j->chunks[j->nchunks].off = off;
		j->chunks[j->nchunks++].len = len;
		off += len;
	}
	for (i = j->nchunks - 1; i > 0; i--) {
		k = next_rand(j) % (i + 1);
		t = j->chunks[i];
		j->chunks[i] = j->chunks[k];
		j->chunks[k] = t;
	}
}

static int io_pass(struct blk_job *j, bool write)
{
	const struct chunk *c;
	ssize_t n;
	size_t i;

	plan(j);
	for (i = 0; i < j->nchunks; i++) {
		c = &j->chunks[i];
		if (write) {
			fill(j, j->buf, c->off, c->len);
			n = pwrite(j->fd, j->buf, c->len, c->off);
		} else {
			memset(j->buf, 0, c->len);
			n = pread(j->fd, j->buf, c->len, c->off);
		}
		if (n != (ssize_t)c->len) {
			sac_fail(j->r, "io-error: %s %s at %lu+%lu: %s",
				 write ? "pwrite" : "pread", j->path, c->off,
				 c->len, n < 0 ? strerror(errno) : "short");
			return -1;
		}
		if (!write)
			check(j, j->buf, c->off, c->len);
	}
	if (write && fdatasync(j->fd)) {
		sac_fail(j->r, "io-error: fdatasync %s: %s", j->path,
			 strerror(errno));
		return -1;
	}
	return 0;
}

static bool probe_pending(const struct blk_kind *k)
{
	size_t plen = strlen(k->probe_prefix);
	struct dirent *e;
	bool found = false;
	DIR *d;

	d = opendir(k->probe_dir);
	if (!d)
		return false;
	while (!found && (e = readdir(d)))
		found = !strncmp(e->d_name, k->probe_prefix, plen);
	closedir(d);
	return found;
}

/* Waits for the node while a controller is there and may still probe. */
static int wait_device(struct blk_job *j, const struct blk_kind *k)
{
	unsigned long wait_s;
	struct stat st;
	double until;

	if (sac_param_uint(j->r, "wait_s", 10, 0, 600, &wait_s))
		return -1;
	until = sac_now() + wait_s;
	while (stat(j->path, &st)) {
		if (!probe_pending(k) || sac_now() > until) {
			sac_skip(j->r, "no device %s", j->path);
			return -1;
		}
		usleep(50000);
	}
	if (!S_ISBLK(st.st_mode)) {
		sac_fail(j->r, "%s is not a block device", j->path);
		return -1;
	}
	return 0;
}

static bool valid_dev(const char *s)
{
	if (!*s || strlen(s) > 32)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9')))
			return false;
	return true;
}

/* The disk's node, once it is there; 0, or -1 with the result set. */
static int find_disk(struct blk_job *j, const struct blk_kind *k)
{
	const char *dev = sac_param(j->r, "dev", k->def_dev);

	if (!valid_dev(dev)) {
		sac_fail(j->r, "bad-parameter: sac.%s.dev=%.40s", j->r->workload,
			 dev);
		return -1;
	}
	snprintf(j->path, sizeof(j->path), "/dev/%s", dev);
	return wait_device(j, k);
}

/*
 * O_DIRECT on a file moves its blocks between the buffer and the disk
 * by DMA as on the disk itself, through the file system's mapping.
 */
static int open_target(struct blk_job *j, const struct blk_kind *k)
{
	int flags = O_RDWR | O_DIRECT | O_CLOEXEC;

	if (k->file) {
		j->fd = open(j->path, flags | O_CREAT | O_TRUNC, 0600);
		if (j->fd >= 0 && ftruncate(j->fd, j->total))
			sac_fail(j->r, "ftruncate %s: %s", j->path,
				 strerror(errno));
	} else {
		j->fd = open(j->path, flags);
	}
	if (j->fd < 0) {
		sac_fail(j->r, "open %s: %s", j->path, strerror(errno));
		return -1;
	}
	return 0;
}

static int setup(struct blk_job *j, const struct blk_kind *k)
{
	unsigned long mib, seed;
	u64 size;

	if (k->file)
		snprintf(j->path, sizeof(j->path), "%s", k->file);
	else if (find_disk(j, k))
		return -1;
	if (sac_param_uint(j->r, "mib", 8, 1, 1024, &mib) ||
	    sac_param_uint(j->r, "seed", 0, 0, ULONG_MAX, &seed))
		return -1;
	j->total = mib << 20;
	j->seed = sac_param(j->r, "seed", NULL) ? seed : sac_nonce_seed();
	j->rng = j->seed;
	sac_detail(j->r, "device", "%s", j->path);
	sac_detail(j->r, "seed", "%llu", (unsigned long long)j->seed);
	sac_metric(j->r, "mib", mib);

	if (open_target(j, k))
		return -1;
	if (!k->file && ioctl(j->fd, BLKGETSIZE64, &size) == 0 &&
	    size < j->total) {
		sac_fail(j->r, "%s has %llu MiB, the workload needs %lu",
			 j->path, (unsigned long long)(size >> 20), mib);
		return -1;
	}
	j->chunks = calloc(j->total / GRANULE, sizeof(*j->chunks));
	if (posix_memalign((void **)&j->buf, GRANULE, MAX_CHUNK) || !j->chunks) {
		sac_fail(j->r, "out of memory");
		return -1;
	}
	return 0;
}

static void run(struct sac_result *r, const struct blk_kind *k)
{
	struct blk_job j = { .r = r, .fd = -1 };
	double t0, t1, t2;

	if (setup(&j, k))
		goto out;
	t0 = sac_now();
	if (io_pass(&j, true))
		goto out;
	t1 = sac_now();
	if (io_pass(&j, false))
		goto out;
	t2 = sac_now();
	sac_metric(r, "write_mib_s", (j.total >> 20) / (t1 - t0));
	sac_metric(r, "read_mib_s", (j.total >> 20) / (t2 - t1));
	sac_metric(r, "bytes_wrong", j.wrong);
	if (j.wrong)
		sac_fail(r,
			 "data-corruption: %llu of %lu bytes differ, first seen at offset %llu of %s",
			 j.wrong, j.total, j.first_bad, j.path);
out:
	if (j.fd >= 0)
		close(j.fd);
	if (k->file)
		unlink(k->file);
	free(j.buf);
	free(j.chunks);
}

void wl_blk(struct sac_result *r)
{
	static const struct blk_kind k = {
		"vda", NULL, "/sys/bus/virtio/drivers/virtio_blk", "virtio" };

	run(r, &k);
}

void wl_nvme(struct sac_result *r)
{
	static const struct blk_kind k = { "nvme0n1", NULL, "/sys/class/nvme", "nvme" };

	run(r, &k);
}

/* An installed system's root disk, through a file of its ext4 root. */
void wl_root_blk(struct sac_result *r)
{
	static const struct blk_kind k = { .file = "/var/tmp/sac-root-blk" };

	run(r, &k);
}
