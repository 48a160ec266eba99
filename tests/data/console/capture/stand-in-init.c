// SPDX-License-Identifier: GPL-2.0
/*
 * stand-in-init: a throw-away PID 1 used only to capture real console logs
 * for the classifier's test data. It speaks the farm protocol (SAC lines)
 * but its workloads are canned: the kernel, the IOMMU and QEMU around it
 * are real, so the fault, abort and hang logs it provokes are genuine.
 *
 * Workloads (sac.run=...):
 *   ok       result pass
 *   fail     result fail (a wrong answer)
 *   corrupt  result fail, reason "data-corruption: ..."
 *   skip     result skip
 *   dmar     edu DMA from an IOVA nobody mapped: a real IOMMU fault
 *   abort    edu DMA ending at its buffer's end: QEMU 7.2 hw_error()
 *   garbage  raw bytes (NUL, ESC, 0xff) and a 5000-byte line, then pass
 * sac.stall=STAGE sleeps forever at STAGE, as the protocol's test hook
 * (agent: before the start line).
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <unistd.h>

#define EDU_SRC		0x80
#define EDU_DST		0x88
#define EDU_CNT		0x90
#define EDU_CMD		0x98
#define EDU_BUF		0x40000
#define EDU_BUF_SIZE	0x1000

static char nonce[32] = "0000000000000000";
static char run[256];
static char stall[64];

static void say(const char *kind, const char *json)
{
	char line[4000];
	int n = snprintf(line, sizeof(line), "SAC %s %s %s\n", nonce, kind, json);

	if (n > 0 && (size_t)n < sizeof(line))
		write(1, line, n);
}

static void param(const char *cmdline, const char *key, char *out, size_t len)
{
	const char *p = strstr(cmdline, key);
	size_t n;

	if (!p)
		return;
	p += strlen(key);
	n = strcspn(p, "\n ");
	if (n >= len)
		n = len - 1;
	memcpy(out, p, n);
	out[n] = '\0';
}

static void read_cmdline(void)
{
	char buf[2048];
	int fd = open("/proc/cmdline", O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = '\0';
	param(buf, "sac.nonce=", nonce, sizeof(nonce));
	param(buf, "sac.run=", run, sizeof(run));
	param(buf, "sac.stall=", stall, sizeof(stall));
}

static void maybe_stall(const char *stage)
{
	if (strcmp(stall, stage) == 0)
		for (;;)
			pause();
}

/* Find edu (1234:11e8) in sysfs; returns its directory or NULL. */
static int find_edu(char *dir, size_t len)
{
	DIR *d = opendir("/sys/bus/pci/devices");
	struct dirent *e;
	char path[512], id[32];
	int found = 0, fd;

	if (!d)
		return 0;
	while (!found && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/device",
			 e->d_name);
		fd = open(path, O_RDONLY);
		if (fd < 0)
			continue;
		memset(id, 0, sizeof(id));
		read(fd, id, sizeof(id) - 1);
		close(fd);
		if (strncmp(id, "0x11e8", 6) == 0) {
			snprintf(dir, len, "/sys/bus/pci/devices/%s", e->d_name);
			found = 1;
		}
	}
	closedir(d);
	return found;
}

/* No driver owns edu, so turn on memory decoding and bus mastering. */
static int edu_enable(const char *dir)
{
	char path[600];
	uint16_t cmd;
	int fd;

	snprintf(path, sizeof(path), "%s/config", dir);
	fd = open(path, O_RDWR);
	if (fd < 0)
		return -1;
	if (pread(fd, &cmd, 2, 4) != 2)
		goto fail;
	cmd |= 0x6;
	if (pwrite(fd, &cmd, 2, 4) != 2)
		goto fail;
	close(fd);
	return 0;
fail:
	close(fd);
	return -1;
}

static uint32_t *edu_map(const char *dir)
{
	char path[600];
	void *p;
	int fd;

	snprintf(path, sizeof(path), "%s/resource0", dir);
	fd = open(path, O_RDWR | O_SYNC);
	if (fd < 0)
		return NULL;
	p = mmap(NULL, 0x100000, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	return p == MAP_FAILED ? NULL : p;
}

/* MMIO from user space: atomics keep every access, in order, untorn. */
static void reg_write(uint32_t *r, unsigned int off, uint64_t v)
{
	__atomic_store_n(&r[off / 4], (uint32_t)v, __ATOMIC_SEQ_CST);
	__atomic_store_n(&r[off / 4 + 1], (uint32_t)(v >> 32), __ATOMIC_SEQ_CST);
}

static uint32_t reg_read(uint32_t *r, unsigned int off)
{
	return __atomic_load_n(&r[off / 4], __ATOMIC_SEQ_CST);
}

/* One device-bound transfer from bus address @src into edu's buffer. */
static int edu_dma(uint32_t src, uint32_t dst, uint32_t cnt)
{
	uint32_t *r;
	char dir[512];
	int i;

	if (!find_edu(dir, sizeof(dir)) || edu_enable(dir))
		return -1;
	r = edu_map(dir);
	if (!r)
		return -1;
	reg_write(r, EDU_SRC, src);
	reg_write(r, EDU_DST, dst);
	reg_write(r, EDU_CNT, cnt);
	__atomic_store_n(&r[EDU_CMD / 4], 1, __ATOMIC_SEQ_CST);
	for (i = 0; i < 100 && (reg_read(r, EDU_CMD) & 1); i++)
		usleep(20000);
	sleep(1);	/* let the fault interrupt reach the console */
	return 0;
}

/* Junk on the console, as a confused guest or device might print. */
static void garbage(void)
{
	static char junk[5200];
	size_t i;

	for (i = 0; i < 256; i++)
		junk[i] = (char)(i * 37 + 11);
	junk[256] = '\n';
	write(1, junk, 257);
	memset(junk, 'G', sizeof(junk) - 1);
	junk[sizeof(junk) - 1] = '\n';
	write(1, junk, sizeof(junk));
}

static void run_workload(const char *w)
{
	char begin[128], res[512];
	const char *status = "pass", *reason = "canned pass";

	snprintf(begin, sizeof(begin), "{\"workload\":\"%s\"}", w);
	say("begin", begin);
	maybe_stall(w);
	if (!strcmp(w, "fail")) {
		status = "fail";
		reason = "wrong answer: expected 42, got 41";
	} else if (!strcmp(w, "corrupt")) {
		status = "fail";
		reason = "data-corruption: 2040 of 2048 bytes differ";
	} else if (!strcmp(w, "skip")) {
		status = "skip";
		reason = "edu device absent";
	} else if (!strcmp(w, "dmar")) {
		status = "fail";
		reason = edu_dma(0xfffff000, EDU_BUF, 0x800) ?
			"edu not found" :
			"data-corruption: 2048 of 2048 bytes differ";
	} else if (!strcmp(w, "garbage")) {
		garbage();
	} else if (!strcmp(w, "abort")) {
		edu_dma(0x1000, EDU_BUF + EDU_BUF_SIZE - 0x800, 0x800);
		reason = "QEMU survived a transfer ending at the buffer end";
	}
	snprintf(res, sizeof(res),
		 "{\"workload\":\"%s\",\"status\":\"%s\",\"reason\":\"%s\",\"metrics\":{\"bytes\":2048,\"us\":%d},\"details\":{}}",
		 w, status, reason, (int)strlen(w) * 100 + 17);
	say("result", res);
}

int main(void)
{
	char *w, *save = NULL, done[32];
	int n = 0;

	mount("proc", "/proc", "proc", 0, NULL);
	mount("sysfs", "/sys", "sysfs", 0, NULL);
	read_cmdline();
	maybe_stall("agent");
	say("start", "{\"agent\":\"sac-agent\",\"version\":1}");
	say("identity",
	    "{\"uname\":\"6.1.192-sac-desktop\",\"arch\":\"x86_64\",\"sac\":\"y\",\"cmdline\":\"(stand-in)\",\"pci\":[{\"bdf\":\"0000:00:02.0\",\"vendor\":\"1234\",\"device\":\"11e8\",\"group\":1,\"domain\":\"DMA\"}]}");
	for (w = strtok_r(run, ",", &save); w; w = strtok_r(NULL, ",", &save), n++)
		run_workload(w);
	say("dmesg", "{\"emerg\":0,\"alert\":0,\"crit\":0,\"err\":2,\"warn\":1}");
	snprintf(done, sizeof(done), "{\"results\":%d}", n);
	say("done", done);
	sync();
	reboot(RB_POWER_OFF);
	return 0;
}
