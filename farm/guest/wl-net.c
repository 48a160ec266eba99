// SPDX-License-Identifier: GPL-2.0
/*
 * Workload "net": two virtio-net NICs on one QEMU hub. Raw ethernet
 * frames go out of one and must come back in on the other, each intact:
 * both rings are DMA'd through the IOMMU. The kernel has AF_PACKET but no
 * INET, so everything here is link level.
 *
 * Parameters: sac.net.tx / sac.net.rx (default eth0 / eth1), sac.net.mib
 * (frame bytes to send, default 4), sac.net.window (frames in flight,
 * default 128), sac.net.timeout_s (default 60).
 *
 * A corrupt frame is told apart by what it holds (detail corrupt_kinds):
 * "stale", an intact frame of this run under another frame's length (an
 * older frame the buffer kept: the NIC's write went somewhere else);
 * "damaged", a frame's header with wrong bytes after it; "foreign",
 * bytes that are no frame of this run; "short", less than a header.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "workloads.h"

#define ETH_P_SAC	0x88b5		/* IEEE 802 local experimental */
#define FRAME_MIN	60
#define FRAME_MAX	1514
#define MAGIC		0x5341434eU	/* "SACN" */
#define STALL_MS	1000
#define MAX_STALLS	3	/* silent windows in a row: the path is dead */

/* After the ethernet header; fields in network order. */
struct frame_hdr {
	u32 magic;
	u32 run;		/* from the seed: frames of this job only */
	u32 seq;
	u32 total;
	u32 len;		/* whole frame, ethernet header included */
	u32 csum;		/* FNV-1a over the frame with csum = 0 */
};

#define HDR_LEN		(ETH_HLEN + sizeof(struct frame_hdr))

struct nic {
	const char *name;
	int ifindex;
	unsigned char mac[ETH_ALEN];
};

enum corrupt_kind { CK_STALE, CK_DAMAGED, CK_FOREIGN, CK_SHORT, CK_N };

static const char *const corrupt_kind_name[CK_N] = {
	[CK_STALE] = "stale", [CK_DAMAGED] = "damaged",
	[CK_FOREIGN] = "foreign", [CK_SHORT] = "short",
};

struct net_job {
	struct sac_result *r;
	struct nic tx, rx;
	int ctl, txfd, rxfd;
	u64 seed;
	u32 run;
	u32 nframes;
	unsigned char *seen;
	unsigned long sent, received, good, lost_written_off;
	unsigned long corrupt, dup, good_bytes;
	unsigned long kinds[CK_N];	/* corrupt frames by what they hold */
	unsigned long stalls;		/* windows that went silent */
};

static u64 mix64(u64 x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static u32 fnv1a(const unsigned char *p, size_t n)
{
	u32 h = 0x811c9dc5U;

	while (n--)
		h = (h ^ *p++) * 0x01000193U;
	return h;
}

static size_t frame_len(const struct net_job *j, u32 seq)
{
	return FRAME_MIN + mix64(j->seed ^ seq) % (FRAME_MAX - FRAME_MIN + 1);
}

static unsigned char payload_byte(const struct net_job *j, u32 seq,
				  size_t i)
{
	return mix64(j->seed + ((u64)seq << 16) + i / 8) >> (i % 8 * 8);
}

static size_t build_frame(const struct net_job *j, u32 seq,
			  unsigned char *f)
{
	size_t len = frame_len(j, seq), i;
	struct frame_hdr h = {
		.magic = htonl(MAGIC), .run = htonl(j->run),
		.seq = htonl(seq), .total = htonl(j->nframes),
		.len = htonl(len),
	};

	memcpy(f, j->rx.mac, ETH_ALEN);
	memcpy(f + ETH_ALEN, j->tx.mac, ETH_ALEN);
	f[12] = ETH_P_SAC >> 8;
	f[13] = ETH_P_SAC & 0xff;
	for (i = HDR_LEN; i < len; i++)
		f[i] = payload_byte(j, seq, i);
	memcpy(f + ETH_HLEN, &h, sizeof(h));
	h.csum = htonl(fnv1a(f, len));
	memcpy(f + ETH_HLEN, &h, sizeof(h));
	return len;
}

/* The n bytes at f begin frame seq as build_frame() makes it. */
static bool frame_starts(const struct net_job *j, const unsigned char *f,
			 u32 seq, size_t n)
{
	unsigned char want[FRAME_MAX];

	return n <= build_frame(j, seq, want) && !memcmp(f, want, n);
}

/*
 * What a corrupt frame of n bytes holds. An intact frame of this run
 * under another frame's length is an older frame the buffer kept: the
 * NIC's write of this one went somewhere else.
 */
static enum corrupt_kind corrupt_kind(const struct net_job *j,
				      const unsigned char *f, size_t n)
{
	struct frame_hdr h;
	size_t len;
	u32 seq;

	if (n < HDR_LEN)
		return CK_SHORT;
	memcpy(&h, f + ETH_HLEN, sizeof(h));
	seq = ntohl(h.seq);
	len = ntohl(h.len);
	if (ntohl(h.magic) != MAGIC || ntohl(h.run) != j->run ||
	    seq >= j->nframes || len != frame_len(j, seq))
		return CK_FOREIGN;
	if (len != n && frame_starts(j, f, seq, len < n ? len : n))
		return CK_STALE;
	return CK_DAMAGED;
}

/* Checks a received frame against what its sequence number says. */
static void check_frame(struct net_job *j, unsigned char *f, size_t n)
{
	enum corrupt_kind kind;
	struct frame_hdr h;
	u32 seq, csum;
	bool ok;
	size_t i;

	j->received++;
	if (n < HDR_LEN)
		goto corrupt;
	memcpy(&h, f + ETH_HLEN, sizeof(h));
	seq = ntohl(h.seq);
	if (ntohl(h.magic) != MAGIC || ntohl(h.run) != j->run ||
	    seq >= j->nframes || ntohl(h.len) != n ||
	    n != frame_len(j, seq) || memcmp(f, j->rx.mac, ETH_ALEN) ||
	    memcmp(f + ETH_ALEN, j->tx.mac, ETH_ALEN))
		goto corrupt;
	csum = ntohl(h.csum);
	h.csum = 0;
	memcpy(f + ETH_HLEN, &h, sizeof(h));
	ok = fnv1a(f, n) == csum;
	h.csum = htonl(csum);
	memcpy(f + ETH_HLEN, &h, sizeof(h));
	for (i = HDR_LEN; ok && i < n; i++)
		ok = f[i] == payload_byte(j, seq, i);
	if (!ok)
		goto corrupt;
	if (j->seen[seq]++) {
		j->dup++;
		return;
	}
	j->good++;
	j->good_bytes += n;
	return;
corrupt:
	kind = corrupt_kind(j, f, n);
	j->kinds[kind]++;
	if (!j->corrupt++)
		sac_detail(j->r, "first_corrupt",
			   "frame of %zu bytes after %lu good: %s", n, j->good,
			   corrupt_kind_name[kind]);
}

/* Takes in what has arrived; waits up to ms for the first frame. */
static int drain(struct net_job *j, int ms)
{
	unsigned char f[FRAME_MAX + 64];
	struct pollfd p = { .fd = j->rxfd, .events = POLLIN };
	ssize_t n;
	int got = 0;

	if (ms && poll(&p, 1, ms) <= 0)
		return 0;
	for (;;) {
		n = recv(j->rxfd, f, sizeof(f), MSG_DONTWAIT | MSG_TRUNC);
		if (n < 0)
			return got;
		check_frame(j, f, n > (ssize_t)sizeof(f) ? sizeof(f) : (size_t)n);
		got++;
	}
}

static int nic_ioctl(struct net_job *j, struct nic *nic, unsigned long req,
		     struct ifreq *ifr)
{
	memset(ifr->ifr_name, 0, IFNAMSIZ);
	strncpy(ifr->ifr_name, nic->name, IFNAMSIZ - 1);
	return ioctl(j->ctl, req, ifr);
}

static int wait_carrier(struct net_job *j, struct nic *nic)
{
	char path[64], buf[8] = "";
	double until = sac_now() + 5;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/sys/class/net/%s/carrier", nic->name);
	do {
		fd = open(path, O_RDONLY);
		if (fd >= 0) {
			n = read(fd, buf, sizeof(buf) - 1);
			close(fd);
			if (n > 0 && buf[0] == '1')
				return 0;
		}
		usleep(20000);
	} while (sac_now() < until);
	sac_fail(j->r, "%s: no carrier after 5 s", nic->name);
	return -1;
}

/* Index, MAC address and IFF_UP; an absent NIC skips the workload. */
static int nic_up(struct net_job *j, struct nic *nic)
{
	struct ifreq ifr;

	if (nic_ioctl(j, nic, SIOCGIFINDEX, &ifr)) {
		sac_skip(j->r, "no NIC %s (%s)", nic->name, strerror(errno));
		return -1;
	}
	nic->ifindex = ifr.ifr_ifindex;
	if (nic_ioctl(j, nic, SIOCGIFHWADDR, &ifr))
		goto fail;
	memcpy(nic->mac, ifr.ifr_hwaddr.sa_data, ETH_ALEN);
	if (nic_ioctl(j, nic, SIOCGIFFLAGS, &ifr))
		goto fail;
	ifr.ifr_flags |= IFF_UP;
	if (nic_ioctl(j, nic, SIOCSIFFLAGS, &ifr))
		goto fail;
	return wait_carrier(j, nic);
fail:
	sac_fail(j->r, "%s: interface ioctl: %s", nic->name, strerror(errno));
	return -1;
}

static int bound_socket(struct net_job *j, const struct nic *nic, int proto)
{
	struct sockaddr_ll a = {
		.sll_family = AF_PACKET,
		.sll_protocol = proto,	/* 0: send only, no receive hook */
		.sll_ifindex = nic->ifindex,
	};
	int fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, proto);
	int size = 4 << 20;

	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a))) {
		sac_fail(j->r, "packet socket on %s: %s", nic->name,
			 strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	/* Root may pass rmem_max: the window, not the buffer, paces us. */
	setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size));
	return fd;
}

static int setup(struct net_job *j)
{
	unsigned long mib, bytes = 0;
	u32 n;

	j->tx.name = sac_param(j->r, "tx", "eth0");
	j->rx.name = sac_param(j->r, "rx", "eth1");
	if (strlen(j->tx.name) >= IFNAMSIZ || strlen(j->rx.name) >= IFNAMSIZ ||
	    !strcmp(j->tx.name, j->rx.name)) {
		sac_fail(j->r, "bad-parameter: sac.net.tx/rx");
		return -1;
	}
	if (sac_param_uint(j->r, "mib", 4, 1, 256, &mib))
		return -1;
	j->ctl = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (j->ctl < 0) {
		sac_skip(j->r, "no AF_PACKET sockets: %s", strerror(errno));
		return -1;
	}
	if (nic_up(j, &j->tx) || nic_up(j, &j->rx))
		return -1;
	j->txfd = bound_socket(j, &j->tx, 0);
	j->rxfd = bound_socket(j, &j->rx, htons(ETH_P_SAC));
	if (j->txfd < 0 || j->rxfd < 0)
		return -1;

	j->seed = sac_nonce_seed();
	j->run = mix64(j->seed);
	for (n = 0; bytes < mib << 20; n++)
		bytes += frame_len(j, n);
	j->nframes = n;
	j->seen = calloc(n, 1);
	if (!j->seen) {
		sac_fail(j->r, "out of memory");
		return -1;
	}
	return 0;
}

/* Sends every frame, keeping at most window of them unaccounted for. */
static void pump(struct net_job *j, unsigned long window, double deadline)
{
	unsigned char f[FRAME_MAX];
	int stalls = 0;
	size_t len;

	while (j->sent < j->nframes) {
		if (sac_now() > deadline) {
			sac_fail(j->r, "timeout: sent %lu of %u frames",
				 j->sent, j->nframes);
			return;
		}
		if (j->sent - j->received - j->lost_written_off >= window) {
			if (drain(j, STALL_MS)) {
				stalls = 0;
				continue;
			}
			j->stalls++;
			if (++stalls == MAX_STALLS) {
				sac_fail(j->r,
					 "stalled: nothing arrived on %s for %d s, sent %lu of %u frames",
					 j->rx.name, MAX_STALLS * STALL_MS / 1000,
					 j->sent, j->nframes);
				return;
			}
			/* The window's frames are lost: move on. */
			j->lost_written_off = j->sent - j->received;
			continue;
		}
		len = build_frame(j, j->sent, f);
		if (send(j->txfd, f, len, 0) != (ssize_t)len) {
			sac_fail(j->r, "send on %s: %s", j->tx.name,
				 strerror(errno));
			return;
		}
		j->sent++;
		drain(j, 0);
	}
	while (j->received < j->sent && drain(j, STALL_MS))
		;
}

void wl_net(struct sac_result *r)
{
	struct net_job j = { .r = r, .ctl = -1, .txfd = -1, .rxfd = -1 };
	unsigned long window, timeout_s, lost;
	double t0, t;

	if (sac_param_uint(r, "window", 128, 1, 256, &window) ||
	    sac_param_uint(r, "timeout_s", 60, 1, 3600, &timeout_s) ||
	    setup(&j))
		goto out;
	t0 = sac_now();
	pump(&j, window, t0 + timeout_s);
	t = sac_now() - t0;
	lost = j.sent > j.good + j.corrupt ? j.sent - j.good - j.corrupt : 0;
	sac_metric(r, "frames", j.sent);
	sac_metric(r, "lost", lost);
	sac_metric(r, "corrupt", j.corrupt);
	sac_metric(r, "duplicate", j.dup);
	sac_metric(r, "stalls", j.stalls);
	sac_metric(r, "mib_s", t > 0 ? j.good_bytes / t / (1 << 20) : 0);
	sac_detail(r, "path", "%s -> %s", j.tx.name, j.rx.name);
	if (j.corrupt) {
		sac_detail(r, "corrupt_kinds",
			   "stale %lu, damaged %lu, foreign %lu, short %lu",
			   j.kinds[CK_STALE], j.kinds[CK_DAMAGED],
			   j.kinds[CK_FOREIGN], j.kinds[CK_SHORT]);
		sac_fail(r, "data-corruption: %lu of %lu frames corrupt",
			 j.corrupt, j.sent);
	} else if (lost || j.dup) {
		sac_fail(r, "frames lost: %lu of %lu (%lu duplicated)", lost,
			 j.sent, j.dup);
	}
out:
	free(j.seen);
	if (j.ctl >= 0)
		close(j.ctl);
	if (j.txfd >= 0)
		close(j.txfd);
	if (j.rxfd >= 0)
		close(j.rxfd);
}
