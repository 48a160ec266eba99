// SPDX-License-Identifier: GPL-2.0
/*
 * sac-agent: PID 1 of the farm's guest initramfs. It reads its orders
 * from the kernel command line, reports on the console in the framing of
 * farm/PROTOCOL.md and powers the machine off. PID 1 must never exit
 * (the kernel would panic and blur the verdict), so every path ends in
 * power_off() or an endless sleep.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent.h"
#include "workloads.h"

#define MAX_PCI		256
#define MAX_CONFIG_GZ	(1024 * 1024)
#define MAX_CONFIG	(16 << 20)

static struct sac_cmdline cmdline;
static char raw_cmdline[SAC_CMDLINE_MAX];
/* The job's key (farm/PROTOCOL.md, "Integrity") and the chain of its lines. */
static u8 key[SAC_KEY_LEN];
static bool keyless;
static struct sac_chain chain;

static void emit(const char *kind, const char *json)
{
	char line[SAC_LINE_MAX];
	size_t len = sac_line(line, &chain, cmdline.nonce, kind, json);
	size_t off = 0;
	ssize_t n;

	/* One write(2) per line; loop only if the tty takes it in parts. */
	while (off < len) {
		n = write(STDOUT_FILENO, line + off, len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		off += n;
	}
}

static __noreturn void sleep_forever(void)
{
	for (;;)
		pause();
}

static __noreturn void power_off(void)
{
	sync();
	reboot(RB_POWER_OFF);
	/* No poweroff method: a reboot ends QEMU too, under -no-reboot. */
	sac_log("power off failed (%s), rebooting", strerror(errno));
	reboot(RB_AUTOBOOT);
	sleep_forever();
}

static void fatal_signal(int sig)
{
	static const char msg[] = "sac-agent: fatal signal, powering off\n";

	(void)sig;
	if (write(STDOUT_FILENO, msg, sizeof(msg) - 1) < 0)
		sync();
	reboot(RB_POWER_OFF);
	reboot(RB_AUTOBOOT);
	_exit(1);
}

static void set_fatal_handlers(void (*handler)(int))
{
	static const int sigs[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT };
	struct sigaction sa = { .sa_handler = handler };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(sigs); i++)
		sigaction(sigs[i], &sa, NULL);
}

static void mount_fs(const char *src, const char *dir, const char *type)
{
	mkdir(dir, 0755);
	if (mount(src, dir, type, 0, NULL) && errno != EBUSY)
		sac_log("mount %s on %s: %s", type, dir, strerror(errno));
}

/* Reads a whole small file; returns its length or -1. */
static ssize_t read_file(const char *path, void *buf, size_t cap)
{
	ssize_t n, len = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	while ((size_t)len < cap) {
		n = read(fd, (char *)buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += n;
	}
	close(fd);
	return len;
}

/* First line of a sysfs attribute, without the newline. */
static int read_attr(const char *path, char *buf, size_t cap)
{
	ssize_t n = read_file(path, buf, cap - 1);

	if (n <= 0)
		return -1;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/*
 * The kernel opens /dev/console for PID 1 only if the initramfs has the
 * node; without it, find the console in devtmpfs.
 */
static void ensure_console(void)
{
	int fd;

	if (fcntl(STDOUT_FILENO, F_GETFD) >= 0)
		return;
	mount_fs("devtmpfs", "/dev", "devtmpfs");
	fd = open("/dev/console", O_RDWR);
	if (fd < 0)
		return;		/* nobody will hear us; carry on regardless */
	dup2(fd, STDIN_FILENO);
	dup2(fd, STDOUT_FILENO);
	dup2(fd, STDERR_FILENO);
	if (fd > STDERR_FILENO)
		close(fd);
}

/*
 * The key comes in the initramfs, as a file only PID 1 ever reads:
 * nothing else runs before it is read and unlinked. In an installed
 * system it comes on the job's disk, which only root reads, and the
 * agent is the job's only program. Without one (a job rendered for a
 * LAVA lab, an old runner) the lines are chained under the all-zero
 * key, which proves nothing: the farm's classifier always has the
 * job's key and refuses them.
 */
static void read_key(const char *path)
{
	char text[SAC_KEY_HEX + 2];
	ssize_t n = read_file(path, text, sizeof(text));

	unlink(path);
	if (n < 0 || sac_key_parse(text, n, key)) {
		memset(key, 0, sizeof(key));
		keyless = true;
	}
	explicit_bzero(text, sizeof(text));
}

static void read_cmdline(void)
{
	ssize_t n = read_file("/proc/cmdline", raw_cmdline,
			      sizeof(raw_cmdline) - 1);

	if (n < 0) {
		n = 0;
		sac_log("cannot read /proc/cmdline: %s", strerror(errno));
	}
	while (n > 0 && raw_cmdline[n - 1] == '\n')
		n--;
	raw_cmdline[n] = '\0';
	sac_cmdline_parse(&cmdline, raw_cmdline, n);
	sac_set_cmdline(&cmdline);
}

/* The SAC option in the running kernel's own config, /proc/config.gz. */
static const char *sac_from_proc(void)
{
	unsigned char *gz = malloc(MAX_CONFIG_GZ), *cfg = NULL;
	const char *state = "unknown";
	size_t len;
	ssize_t n;

	if (!gz)
		return state;
	n = read_file("/proc/config.gz", gz, MAX_CONFIG_GZ);
	if (n <= 0) {
		sac_log("cannot read /proc/config.gz");
		goto out;
	}
	if (sac_gunzip(gz, n, &cfg, &len, MAX_CONFIG)) {
		sac_log("/proc/config.gz does not decompress");
		goto out;
	}
	state = sac_kconfig_state((const char *)cfg, len,
				  "CONFIG_IOMMU_DMA_PCI_SAC");
	free(cfg);
out:
	free(gz);
	return state;
}

/*
 * The same from the config an installed kernel's package put beside it,
 * /boot/config-RELEASE: a release kernel has no /proc/config.gz
 * (Debian's config leaves CONFIG_IKCONFIG out).
 */
static const char *sac_from_boot(const char *release)
{
	char path[128], *cfg = malloc(MAX_CONFIG);
	const char *state = "unknown";
	ssize_t n;

	if (!cfg)
		return state;
	snprintf(path, sizeof(path), "/boot/config-%s", release);
	n = read_file(path, cfg, MAX_CONFIG);
	if (n > 0)
		state = sac_kconfig_state(cfg, n, "CONFIG_IOMMU_DMA_PCI_SAC");
	else
		sac_log("cannot read %s either", path);
	free(cfg);
	return state;
}

static const char *read_sac_option(const char *release)
{
	const char *state = sac_from_proc();

	return strcmp(state, "unknown") ? state : sac_from_boot(release);
}

/* "0x1af4" -> "1af4"; anything else -> "????" */
static void pci_id(const char *dir, const char *attr, char *out)
{
	char path[320], buf[32];
	int i;

	snprintf(path, sizeof(path), "%s/%s", dir, attr);
	strcpy(out, "????");
	if (read_attr(path, buf, sizeof(buf)) || strncmp(buf, "0x", 2) ||
	    strlen(buf) != 6)
		return;
	for (i = 0; i < 4; i++)
		if (!strchr("0123456789abcdef", buf[2 + i]) || !buf[2 + i])
			return;
	memcpy(out, buf + 2, 5);
}

static void pci_iommu(const char *dir, struct sac_pci *p)
{
	char path[320], link[256], type[64];
	const char *base;
	ssize_t n;

	p->group = -1;
	strcpy(p->domain, "none");
	snprintf(path, sizeof(path), "%s/iommu_group", dir);
	n = readlink(path, link, sizeof(link) - 1);
	if (n <= 0)
		return;
	link[n] = '\0';
	base = strrchr(link, '/');
	base = base ? base + 1 : link;
	p->group = atoi(base);
	snprintf(path, sizeof(path), "/sys/kernel/iommu_groups/%d/type",
		 p->group);
	if (read_attr(path, type, sizeof(type)))
		strcpy(type, "unknown");
	snprintf(p->domain, sizeof(p->domain), "%s", type);
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(((const struct sac_pci *)a)->bdf,
		      ((const struct sac_pci *)b)->bdf);
}

static int scan_pci(struct sac_pci *pci, int max)
{
	DIR *d = opendir("/sys/bus/pci/devices");
	struct dirent *e;
	char dir[300];
	int n = 0, i;

	if (!d)
		return 0;
	while ((e = readdir(d)) && n < max) {
		if (e->d_name[0] == '.' ||
		    strlen(e->d_name) >= sizeof(pci[0].bdf))
			continue;
		strcpy(pci[n++].bdf, e->d_name);
	}
	closedir(d);
	qsort(pci, n, sizeof(*pci), cmp_name);
	for (i = 0; i < n; i++) {
		snprintf(dir, sizeof(dir), "/sys/bus/pci/devices/%.15s",
			 pci[i].bdf);
		pci_id(dir, "vendor", pci[i].vendor);
		pci_id(dir, "device", pci[i].device);
		pci_iommu(dir, &pci[i]);
	}
	return n;
}

static void emit_identity(void)
{
	static struct sac_identity id;
	static struct sac_pci pci[MAX_PCI];
	char json[SAC_JSON_MAX];
	struct utsname u;
	struct sac_jw w;

	if (uname(&u) == 0) {
		snprintf(id.uname, sizeof(id.uname), "%s", u.release);
		snprintf(id.arch, sizeof(id.arch), "%s", u.machine);
	}
	id.sac = read_sac_option(id.uname);
	snprintf(id.cmdline, sizeof(id.cmdline), "%s", raw_cmdline);
	id.pci = pci;
	id.npci = scan_pci(pci, MAX_PCI);
	sac_jw_init(&w, json, sizeof(json));
	sac_identity_json(&w, &id);
	emit("identity", json);
}

static void emit_workload_line(const char *kind, const char *name)
{
	char json[SAC_JSON_MAX];
	struct sac_jw w;

	sac_jw_init(&w, json, sizeof(json));
	sac_jw_open(&w, NULL, '{');
	sac_jw_str(&w, "workload", name);
	emit(kind, sac_jw_finish(&w));
}

static void emit_result(const struct sac_result *r)
{
	char json[SAC_JSON_MAX];
	struct sac_jw w;

	sac_jw_init(&w, json, sizeof(json));
	sac_result_json(&w, r);
	emit("result", json);
}

static const struct sac_workload *find_workload(const char *name)
{
	size_t i;

	for (i = 0; i < sac_nworkloads; i++)
		if (!strcmp(sac_workloads[i].name, name))
			return &sac_workloads[i];
	return NULL;
}

static __noreturn void child(const struct sac_workload *wl, int fd)
{
	static struct sac_result r;
	size_t off = 0;
	ssize_t n;

	set_fatal_handlers(SIG_DFL);	/* a crash here is the child's own */
	/* a workload has no business with the key: its copy goes */
	sac_chain_wipe(&chain);
	sac_result_init(&r, wl->name);
	wl->run(&r);
	while (off < sizeof(r)) {
		n = write(fd, (char *)&r + off, sizeof(r) - off);
		if (n <= 0)
			_exit(1);
		off += n;
	}
	_exit(0);
}

/* What came back through the pipe is the child's; make it well formed. */
static void sanitize(struct sac_result *r, const char *name)
{
	int i;

	snprintf(r->workload, sizeof(r->workload), "%s", name);
	if (r->status != SAC_PASS && r->status != SAC_SKIP)
		r->status = SAC_FAIL;
	r->reason[sizeof(r->reason) - 1] = '\0';
	if (r->nmetrics < 0 || r->nmetrics > SAC_MAX_METRICS)
		r->nmetrics = 0;
	if (r->ndetails < 0 || r->ndetails > SAC_MAX_DETAILS)
		r->ndetails = 0;
	for (i = 0; i < r->nmetrics; i++)
		r->metrics[i].name[SAC_NAME_MAX] = '\0';
	for (i = 0; i < r->ndetails; i++) {
		r->details[i].name[SAC_NAME_MAX] = '\0';
		r->details[i].value[SAC_DETAIL_MAX - 1] = '\0';
	}
}

/* Runs wl in a child, so that a crashing workload cannot take PID 1. */
static void run_workload(const struct sac_workload *wl, struct sac_result *r)
{
	size_t got = 0;
	int fds[2], status;
	pid_t pid;
	ssize_t n;

	sac_result_init(r, wl->name);
	if (pipe(fds)) {
		sac_fail(r, "agent: pipe: %s", strerror(errno));
		return;
	}
	pid = fork();
	if (pid < 0) {
		sac_fail(r, "agent: fork: %s", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return;
	}
	if (!pid) {
		close(fds[0]);
		child(wl, fds[1]);
	}
	close(fds[1]);
	while (got < sizeof(*r)) {
		n = read(fds[0], (char *)r + got, sizeof(*r) - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += n;
	}
	close(fds[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (got == sizeof(*r) && WIFEXITED(status) && !WEXITSTATUS(status)) {
		sanitize(r, wl->name);
		return;
	}
	sac_result_init(r, wl->name);
	if (WIFSIGNALED(status))
		sac_fail(r, "workload crashed: signal %d", WTERMSIG(status));
	else
		sac_fail(r, "workload died: exit %d, %zu of %zu result bytes",
			 WEXITSTATUS(status), got, sizeof(*r));
}

static int run_all(void)
{
	static struct sac_result r;
	const struct sac_workload *wl;
	int i;

	for (i = 0; i < cmdline.nrun; i++) {
		emit_workload_line("begin", cmdline.run[i]);
		if (!strcmp(cmdline.stall, cmdline.run[i]))
			sleep_forever();
		wl = find_workload(cmdline.run[i]);
		if (wl) {
			run_workload(wl, &r);
		} else {
			sac_result_init(&r, cmdline.run[i]);
			sac_fail(&r, "unknown workload '%s'", cmdline.run[i]);
		}
		emit_result(&r);
	}
	return cmdline.nrun;
}

static const char *const dmesg_levels[] = {
	"emerg", "alert", "crit", "err", "warn" };

/* One record: the prefix is facility * 8 + level. */
static void count_level(const char *rec, void *arg)
{
	long *counts = arg, prefix = strtol(rec, NULL, 10);

	if (prefix >= 0 && (size_t)(prefix & 7) < ARRAY_SIZE(dmesg_levels))
		counts[prefix & 7]++;
}

/* Counts the kernel log's records by level. */
static void emit_dmesg(void)
{
	long counts[ARRAY_SIZE(dmesg_levels)] = { 0 };
	char json[SAC_JSON_MAX];
	struct sac_jw w;
	size_t i;
	int rc;

	rc = sac_kmsg_each(count_level, counts);
	if (rc)
		sac_log("cannot open /dev/kmsg: %s", strerror(-rc));
	sac_jw_init(&w, json, sizeof(json));
	sac_jw_open(&w, NULL, '{');
	for (i = 0; i < ARRAY_SIZE(dmesg_levels); i++)
		sac_jw_int(&w, dmesg_levels[i], counts[i]);
	emit("dmesg", sac_jw_finish(&w));
}

int sac_load_module(const char *path, const char *params)
{
	int fd, rc = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (syscall(SYS_finit_module, fd, params ? params : "",
		    sac_module_init_flags(path)))
		rc = -errno;
	close(fd);
	return rc;
}

/* 0, or -errno; a module that is not loaded is not an error. */
int sac_unload_module(const char *name)
{
	if (syscall(SYS_delete_module, name, O_NONBLOCK) && errno != ENOENT)
		return -errno;
	return 0;
}

/* Whether a module name of len bytes is name: - and _ are one. */
static bool same_module(const char *a, size_t len, const char *name)
{
	size_t i;

	if (strlen(name) != len)
		return false;
	for (i = 0; i < len; i++)
		if (a[i] != name[i] &&
		    !(strchr("-_", a[i]) && strchr("-_", name[i])))
			return false;
	return true;
}

/* What module_word gathers: one module's options, "param=value ...". */
struct module_params {
	char name[64];
	char *out;
	size_t cap, used;
};

static void module_word(char *word, void *arg)
{
	struct module_params *m = arg;
	size_t key = strcspn(word, ".=");

	if (word[key] != '.' || !same_module(word, key, m->name) ||
	    m->used + strlen(word) - key + 1 >= m->cap)
		return;
	m->used += snprintf(m->out + m->used, m->cap - m->used, "%s%s",
			    m->used ? " " : "", word + key + 1);
}

/*
 * The options the kernel command line gives the module at path, its
 * words "name.param=value", as modprobe passes them on: a loadable
 * pci-stub takes pci-stub.ids= so, as a built-in one does.
 */
static void module_params(const char *path, char *out, size_t cap)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	struct module_params m = { .out = out, .cap = cap };
	size_t name_len = strcspn(base, ".");

	*out = '\0';
	if (name_len >= sizeof(m.name))
		return;
	snprintf(m.name, sizeof(m.name), "%.*s", (int)name_len, base);
	sac_cmdline_words(raw_cmdline, strlen(raw_cmdline), module_word, &m);
}

/*
 * Load the in-tree modules the runner packed for this kernel (a distro
 * kernel has its virtio and NVMe drivers as modules), in the order it
 * wrote to /lib/modules/<release>/modules.sac: dependencies first, each
 * with its options from the command line.
 */
static void load_listed_modules(void)
{
	static char params[SAC_CMDLINE_MAX];
	char path[512], line[512];
	struct utsname u;
	FILE *list;
	int rc;

	if (uname(&u))
		return;
	snprintf(path, sizeof(path), "/lib/modules/%s/modules.sac", u.release);
	list = fopen(path, "r");
	if (!list)
		return;
	while (fgets(line, sizeof(line), list)) {
		line[strcspn(line, "\n")] = '\0';
		if (line[0] != '/')
			continue;
		module_params(line, params, sizeof(params));
		rc = sac_load_module(line, params);
		if (rc == -EOPNOTSUPP)
			sac_log("cannot load %s: %s", line,
				"this kernel cannot decompress modules (no CONFIG_MODULE_DECOMPRESS)");
		else if (rc && rc != -EEXIST)
			sac_log("cannot load %s: %s", line, strerror(-rc));
	}
	fclose(list);
}

/*
 * As PID 1 of the farm's initramfs the agent sets the system up itself;
 * with --installed KEYFILE it is a service of an installed system
 * (farm/image/), which has mounted and loaded everything already.
 */
int main(int argc, char **argv)
{
	bool installed = argc == 3 && !strcmp(argv[1], "--installed");
	const char *key_path = installed ? argv[2] : SAC_KEY_PATH;
	char json[64];
	int n;

	if (getpid() != 1 && !installed) {
		fprintf(stderr,
			"sac-agent: must run as PID 1 in a guest, or --installed KEYFILE as a service of one (it powers the machine off)\n");
		return 1;
	}
	read_key(key_path);
	set_fatal_handlers(fatal_signal);
	ensure_console();
	mount_fs("proc", "/proc", "proc");
	read_cmdline();
	sac_chain_init(&chain, key, cmdline.nonce);
	explicit_bzero(key, sizeof(key));
	emit("start", "{\"agent\":\"sac-agent\",\"version\":2}");
	if (keyless)
		sac_log("no key in %s: these lines prove nothing",
			key_path);
	if (cmdline.errors)
		sac_log("command line: %d bad sac.* token(s), first: %s",
			cmdline.errors, cmdline.first_error);
	if (!strcmp(cmdline.stall, "agent"))
		sleep_forever();
	if (!installed) {
		mount_fs("sysfs", "/sys", "sysfs");
		mount_fs("devtmpfs", "/dev", "devtmpfs");
		load_listed_modules();
	}
	mount_fs("debugfs", "/sys/kernel/debug", "debugfs");
	emit_identity();
	n = run_all();
	emit_dmesg();
	snprintf(json, sizeof(json), "{\"results\":%d}", n);
	emit("done", json);
	power_off();
}
